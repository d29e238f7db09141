#pragma once
// A closed set of names for one kind of thing (collectives, algorithms, optimizers, devices, model kinds,
// presets): the one place that parses a name, suggests the nearest on a typo and lists the valid ones, so
// every such message reads the same:
//   unknown optimizer 'adamw' (did you mean 'adam'?); valid optimizers are sgd, adam, adafactor
#include <fmt/format.h>

#include <string>
#include <vector>

#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim {

// "unknown <what> '<name>'<did you mean>; valid <what>s are <valid, in order>".
inline std::string unknown_name_message(const std::string& what, const std::string& name,
                                        const std::vector<std::string>& valid) {
  return fmt::format("unknown {} '{}'{}; valid {}s are {}", what, name, did_you_mean(name, valid), what,
                     join(valid));
}

template <class T>
class NameTable {
 public:
  struct Entry {
    std::string name;
    T value;
  };

  // `what` names one thing of the set ("optimizer", "allreduce algorithm"); names must be distinct.
  NameTable(std::string what, std::vector<Entry> entries)
      : what_(std::move(what)), entries_(std::move(entries)) {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) TPUSIM_CHECK(entries_[i].name != entries_[j].name);
    }
  }

  const std::string& what() const { return what_; }
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : entries_) out.push_back(entry.name);
    return out;
  }
  // nullptr when `name` is not in the table.
  const T* find(const std::string& name) const {
    for (const auto& entry : entries_) {
      if (entry.name == name) return &entry.value;
    }
    return nullptr;
  }
  // InputError unknown_name_message(...) when `name` is not in the table.
  const T& parse(const std::string& name) const {
    if (const T* value = find(name)) return *value;
    throw InputError(unknown_name_message(what_, name, names()));
  }
  // The name of a value (a bug in tpusim when it has none).
  const std::string& name_of(const T& value) const {
    for (const auto& entry : entries_) {
      if (entry.value == value) return entry.name;
    }
    TPUSIM_CHECK(false);
    return entries_.front().name;
  }

 private:
  std::string what_;
  std::vector<Entry> entries_;
};

}  // namespace tpusim
