// The image checks the plot tests rely on tell a broken image from a good one.
#include "image_checks.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "sweep_fixtures.hpp"

using tpusim::test::png_problem;
using tpusim::test::svg_problem;

TEST_CASE("image checks: a PNG needs its signature and an IHDR of non-zero size") {
  const tpusim::test::TempFolder temp;
  const auto path = temp.path() / "a.png";
  const std::string signature = "\x89PNG\r\n\x1a\n";
  const std::string ihdr_length("\0\0\0\x0d", 4), crc("\0\0\0\0", 4);
  auto png = [&](const std::string& width) {
    return signature + ihdr_length + "IHDR" + width + std::string("\0\0\0\x20", 4) +
           std::string("\x08\x06\0\0\0", 5) + crc;
  };
  std::ofstream(path, std::ios::binary) << png(std::string("\0\0\0\x40", 4));
  CHECK(png_problem(path) == "");
  std::ofstream(path, std::ios::binary) << png(std::string("\0\0\0\0", 4));
  CHECK_THAT(png_problem(path), Catch::Contains("width or height of 0"));
  std::ofstream(path, std::ios::binary) << "GIF89a, not a PNG at all, but long enough to be read";
  CHECK_THAT(png_problem(path), Catch::Contains("no PNG signature"));
}

TEST_CASE("image checks: an SVG must be well-formed XML with an <svg> root") {
  const tpusim::test::TempFolder temp;
  const auto path = temp.path() / "a.svg";
  std::ofstream(path) << "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\">\n"
                         "<svg width=\"10\"><!-- a > comment --><g a='>'><path d=\"M0 0\"/></g>"
                         "<script><![CDATA[ if (a < b) {} ]]></script></svg>\n";
  CHECK(svg_problem(path) == "");
  std::ofstream(path) << "<svg><g></svg>";
  CHECK_THAT(svg_problem(path), Catch::Contains("</svg> closes <g>"));
  std::ofstream(path) << "<svg><g>";
  CHECK_THAT(svg_problem(path), Catch::Contains("<g> is never closed"));
  std::ofstream(path) << "<html></html>";
  CHECK_THAT(svg_problem(path), Catch::Contains("the root element is <html>"));
  std::ofstream(path) << "<svg></svg><svg></svg>";
  CHECK_THAT(svg_problem(path), Catch::Contains("a second root element"));
}
