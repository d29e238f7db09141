#pragma once
// The --schema of tpusim run, search and sweep: the keys the command's input may hold, as text or (with
// --json) as one JSON document. The command reads no input with it: given one, InputError `refusal`.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace tpusim::cli {

void print_key_schema(bool json, bool input_given, const std::string& refusal, void (*print)(std::ostream&),
                      nlohmann::json (*document)());

}  // namespace tpusim::cli
