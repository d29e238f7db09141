#include "workloads/sweep/dry_run.hpp"

#include <fmt/format.h>

#include <optional>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "workloads/sweep/child_pool.hpp"
#include "workloads/sweep/record_folder.hpp"
#include "workloads/sweep/sweep_record.hpp"

namespace tpusim::workloads {
namespace {

using Verdict = PointCheck::Verdict;

// The study's output folder, when it is one a run would resume from.
std::optional<RecordFolder> earlier_folder(const Study& study) {
  try {
    return RecordFolder::existing(study.output_dir());
  } catch (const InputError&) {
    return std::nullopt;  // no folder, or not a sweep's: a run would start afresh (or refuse, saying why)
  }
}

// A valid record that a run would keep rather than repeat (sweep/study_runner.hpp: failures run again).
bool done_earlier(const std::optional<RecordFolder>& folder, const Study& study, std::size_t point) {
  if (!folder) return false;
  const RecordRead read = folder->read(folder->record_file(point, study.point_hash(point)));
  return read.record && read.record->value("status", "") != "failed";
}

}  // namespace

std::vector<PointCheck> dry_run_checks(const Study& study, int jobs) {
  std::vector<PointCheck> checks(study.size());
  std::vector<std::size_t> to_check;
  const auto folder = earlier_folder(study);
  for (std::size_t p = 0; p < study.size(); ++p) {
    if (done_earlier(folder, study, p)) {
      checks[p] = {Verdict::done_earlier, fmt::format("its record is in {}/points/", study.output_dir())};
    } else if (const std::string reason = study.skip_reason(p); !reason.empty()) {
      checks[p] = {Verdict::skipped, reason};
    } else if (study.checks_points()) {
      to_check.push_back(p);
    }
  }
  ChildPool pool(jobs);
  std::size_t next = 0;
  while (next < to_check.size() || pool.running() > 0) {
    while (!pool.full() && next < to_check.size()) {
      const std::size_t point = to_check[next++];
      pool.start(point, [&study, point] { return study.check_point(point); });
    }
    const auto child = pool.wait(0.5);
    if (!child) continue;
    if (!child->ok()) {
      checks[child->tag] = {Verdict::fails, child->error};
    } else if (!child->output.empty()) {
      checks[child->tag] = {Verdict::does_not_fit, child->output};
    }
  }
  return checks;
}

std::string dry_run_counts(const std::vector<PointCheck>& checks) {
  const std::pair<Verdict, const char*> kinds[] = {{Verdict::runs, "run"},
                                                   {Verdict::done_earlier, "done earlier"},
                                                   {Verdict::skipped, "skipped"},
                                                   {Verdict::fails, "fail"},
                                                   {Verdict::does_not_fit, "do not fit their HBM"}};
  std::vector<std::string> parts;
  for (const auto& [verdict, words] : kinds) {
    std::size_t n = 0;
    for (const auto& check : checks) n += check.verdict == verdict ? 1 : 0;
    if (n > 0) parts.push_back(fmt::format("{} {}", n, words));
  }
  return join(parts, ", ");
}

std::string dry_run_note(const PointCheck& check) {
  switch (check.verdict) {
    case Verdict::runs:
      return "";
    case Verdict::done_earlier:
      return "  [done earlier: " + check.reason + "]";
    case Verdict::skipped:
      return "  [skipped: " + check.reason + "]";
    case Verdict::fails:
      return "  [fails: " + check.reason + "]";
    case Verdict::does_not_fit:
      return "  [runs, but " + check.reason + "]";
  }
  return "";
}

}  // namespace tpusim::workloads
