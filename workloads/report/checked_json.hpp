#pragma once
// A value of a JSON document tpusim reads back (a sweep's sweep.json), with the file and the key it is at,
// so that every problem found in it is one InputError line naming both:
//   results/x/sweep.json: runs[3].step_time.step_time_s: expected a number of at least 0, not "fast"
// A reader takes nothing from such a document but through these accessors, each of which checks what it
// reads: a key that is missing, a value of the wrong type or out of its range is that line.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tpusim::workloads {

class CheckedJson {
 public:
  // `file` names the document in messages; `key` is where `value` is in it ("" for the whole document).
  CheckedJson(const nlohmann::json& value, std::string file, std::string key = "");

  const nlohmann::json& json() const { return *value_; }
  const std::string& key() const { return key_; }

  // An object's member: at() fails when it is missing, find() gives nothing. Both fail on a non-object.
  CheckedJson at(const std::string& name) const;
  std::optional<CheckedJson> find(const std::string& name) const;
  bool has(const std::string& name) const { return find(name).has_value(); }
  // An array's length and elements; fail on a non-array.
  std::size_t size() const;
  CheckedJson at(std::size_t index) const;

  std::string text() const;                      // a string
  bool flag() const;                             // true or false
  std::uint64_t whole() const;                   // a whole number from 0 to 2^53 (exact in a double)
  std::uint64_t count() const;                   // a whole number from 1 to 2^53
  double number() const;                         // a number of at least 0
  double positive() const;                       // a number above 0
  std::optional<double> number_or_null() const;  // a number of at least 0, or null (tpusim writes NaN so)

  // Throws the InputError "<file>: <key>: <problem>".
  [[noreturn]] void fail(const std::string& problem) const;
  // fail("expected <what>, not <the value>").
  [[noreturn]] void expected(const std::string& what) const;

 private:
  std::uint64_t whole_from(std::uint64_t least) const;

  const nlohmann::json* value_;
  std::string file_;
  std::string key_;
};

// A parse error or other exception of nlohmann::json as the words after its "[json.exception...]" tag and
// position, for a message of tpusim's own.
std::string json_exception_reason(const nlohmann::json::exception& error);

}  // namespace tpusim::workloads
