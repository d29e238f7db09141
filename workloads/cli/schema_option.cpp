#include "workloads/cli/schema_option.hpp"

#include <iostream>

#include "topologies/support/input_error.hpp"
#include "workloads/report/report_context.hpp"

namespace tpusim::cli {

void print_key_schema(bool json, bool input_given, const std::string& refusal, void (*print)(std::ostream&),
                      nlohmann::json (*document)()) {
  if (input_given) throw InputError(refusal);
  if (json) {
    std::cout << workloads::dump_report(document()) << "\n";
  } else {
    print(std::cout);
  }
}

}  // namespace tpusim::cli
