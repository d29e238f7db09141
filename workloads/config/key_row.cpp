#include "workloads/config/key_row.hpp"

namespace tpusim::workloads {

KeyDescription::KeyDescription(std::string key_in, std::string type_in, std::string doc_in)
    : key(std::move(key_in)), type(std::move(type_in)), doc(std::move(doc_in)) {}

std::string KeyDescription::section() const {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? "" : key.substr(0, dot);
}

std::string KeyDescription::name() const {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

std::string KeyDescription::default_text() const {
  switch (absent) {
    case KeyAbsent::required:
      return "required";
    case KeyAbsent::default_value:
      return default_value;
    case KeyAbsent::computed:
    case KeyAbsent::nothing:
      return default_note;
    case KeyAbsent::unset:
      break;
  }
  return "?";
}

}  // namespace tpusim::workloads
