#include "topologies/support/name_table.hpp"

#include <catch2/catch.hpp>

using namespace tpusim;

namespace {
enum class Colour { red, green, blue };
const NameTable<Colour>& colours() {
  static const NameTable<Colour> table(
      "colour", {{"red", Colour::red}, {"green", Colour::green}, {"blue", Colour::blue}});
  return table;
}
}  // namespace

TEST_CASE("a name table parses its names and names its values") {
  CHECK(colours().parse("green") == Colour::green);
  CHECK(colours().name_of(Colour::blue) == "blue");
  CHECK(colours().names() == std::vector<std::string>{"red", "green", "blue"});
  CHECK(colours().find("purple") == nullptr);
}

TEST_CASE("an unknown name suggests the nearest and lists the valid ones, in table order") {
  CHECK_THROWS_AS(colours().parse("gren"), InputError);
  CHECK_THROWS_WITH(colours().parse("gren"),
                    "unknown colour 'gren' (did you mean 'green'?); valid colours are red, green, blue");
  CHECK_THROWS_WITH(colours().parse("purple"), "unknown colour 'purple'; valid colours are red, green, blue");
}
