#pragma once
// A key row: one key of a config section, defined once: its dotted name, type, documentation, range, what a
// section that leaves it out gets, and the reader that fills what the section reads (the "Reading"). Every
// section is read from such rows (the run config's ConfigKey, config_schema.hpp; the search section's
// SearchKeyRow, search/search_spec.hpp; a sweep file's StudyFileKey, sweep/study_file.hpp; a collective
// study's point keys, sweep/collective_study_spec.hpp), so a default is written once, in its row, and the
// messages, the unknown-key suggestions and the --schema listings all come from the rows.
//
// KeyRow<Row, Reading> holds what every row has; Row, derived from it (CRTP), adds what its section needs
// beyond that, and the builders return Row& so that a row is written as one expression of both kinds:
//   ConfigKey("name", "text", "...").absent_means("empty").reads(...).reports(...)
#include <functional>
#include <string>
#include <utility>

namespace tpusim::workloads {

class ConfigNode;

// What a section that leaves the key out gets.
enum class KeyAbsent {
  unset,          // a row without one: a bug the schema tests catch
  required,       // an error "missing key"
  default_value,  // default_value, read as if written
  computed,       // fallback() computes it from what is read already; default_note says how
  nothing,        // no value: default_note says what that means ("the device's")
};

// The part of a row that documents the key, whatever its section reads into: what --schema prints.
struct KeyDescription {
  KeyDescription(std::string key, std::string type, std::string doc);

  std::string section() const;       // "hardware" for hardware.topology, "" for a top-level key
  std::string name() const;          // "topology"
  std::string default_text() const;  // for --schema: "tpu-v2-pod", "the device's", "required"

  std::string key;    // dotted, as sweeps and --set write it: "hardware.topology", "search.mesh_dims"
  std::string type;   // what the value is: "memory size (4096, 64KiB, 1GiB, 1.5GB)", "one of sgd, adam"
  std::string doc;    // what it means
  std::string range;  // "1 KiB to 1 PiB", or ""
  KeyAbsent absent = KeyAbsent::unset;
  std::string default_value;  // KeyAbsent::default_value
  std::string default_note;   // KeyAbsent::computed and KeyAbsent::nothing
};

template <class Row, class ReadingT>
struct KeyRow : KeyDescription {
  using Reading = ReadingT;
  using Absent = KeyAbsent;
  using Reader = std::function<void(const ConfigNode& value, Reading& reading)>;
  using Fallback = std::function<void(Reading& reading)>;

  KeyRow(std::string key_in, std::string type_in, std::string doc_in)
      : KeyDescription(std::move(key_in), std::move(type_in), std::move(doc_in)) {}

  Row& ranged(std::string text) {
    range = std::move(text);
    return self();
  }
  Row& required() {
    absent = Absent::required;
    return self();
  }
  Row& defaults_to(std::string yaml_value) {
    absent = Absent::default_value;
    default_value = std::move(yaml_value);
    return self();
  }
  Row& computed(std::string note, Fallback compute) {
    absent = Absent::computed;
    default_note = std::move(note);
    fallback = std::move(compute);
    return self();
  }
  Row& absent_means(std::string note) {
    absent = Absent::nothing;
    default_note = std::move(note);
    return self();
  }
  Row& reads(Reader reader) {
    read = std::move(reader);
    return self();
  }

  Reader read;
  Fallback fallback;  // Absent::computed

 private:
  Row& self() { return static_cast<Row&>(*this); }
};

// A row with nothing beyond the common part, for a section read by read_key_rows (key_rows_reader.hpp).
template <class Reading>
struct PlainKeyRow : KeyRow<PlainKeyRow<Reading>, Reading> {
  using KeyRow<PlainKeyRow<Reading>, Reading>::KeyRow;
};

}  // namespace tpusim::workloads
