#include "workloads/sweep/sweep_spec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/sweep/sweep_point_builder.hpp"
#include "workloads/sweep/sweep_sections.hpp"

namespace tpusim::workloads {
namespace {

// `kind` is read by parse_study, which sends only training sweeps here; it may still be spelled out.
const std::vector<std::string> kSweepKeys = {"name", "description", "kind",   "base",    "set",
                                             "vary", "zip",         "points", "exclude", "output"};

std::string stem(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// A point before it is resolved: the values it gives and its cell of every axis.
struct Candidate {
  std::vector<const SweepValue*> own;  // in vary order, or as the listed point writes them
  std::vector<std::string> cells;      // per axis: its own value's text, else the base's as written
  std::string label;                   // "" for a point of the product, "points[P]" for a listed one
  int line = 0;                        // of a listed point
};

class PointLister {
 public:
  PointLister(const SweepSections& sections, const SweepPointBuilder& builder, std::string file)
      : s_(sections), file_(std::move(file)) {
    for (const auto& key : s_.varied_keys) fillers_.push_back(builder.base_text(split(key, '.')));
  }

  // The product of vary's factors, then the listed points; a listed point equal to an earlier one is an
  // error.
  std::vector<Candidate> list(int& product_points) {
    std::size_t count = s_.vary.empty() ? 0 : 1;
    for (const auto& factor : s_.factors) {
      count *= s_.vary[factor.front()].values.size();
      if (count > static_cast<std::size_t>(kMaxSweepPoints)) {
        s_.vary_node->fail(
            fmt::format("the product of the value lists has more than {} points", kMaxSweepPoints));
      }
    }
    product_points = static_cast<int>(count);
    if (count + s_.listed.size() > static_cast<std::size_t>(kMaxSweepPoints))
      s_.points_node->fail(fmt::format("the sweep has more than {} points", kMaxSweepPoints));
    std::vector<Candidate> points;
    std::vector<std::size_t> choice(s_.factors.size(), 0);
    std::vector<std::size_t> factor_of(s_.vary.size());
    for (std::size_t f = 0; f < s_.factors.size(); ++f) {
      for (const std::size_t v : s_.factors[f]) factor_of[v] = f;
    }
    for (std::size_t index = 0; index < count; ++index) {
      Candidate point;
      for (std::size_t v = 0; v < s_.vary.size(); ++v)
        point.own.push_back(&s_.vary[v].values[choice[factor_of[v]]]);
      add(std::move(point), points);
      // Odometer: the last factor turns fastest.
      for (std::size_t f = s_.factors.size(); f-- > 0;) {
        if (++choice[f] < s_.vary[s_.factors[f].front()].values.size()) break;
        choice[f] = 0;
      }
    }
    for (std::size_t p = 0; p < s_.listed.size(); ++p) {
      Candidate point;
      for (const auto& value : s_.listed[p]) point.own.push_back(&value);
      point.label = fmt::format("points[{}]", p);
      point.line = s_.listed_lines[p];
      add(std::move(point), points);
    }
    return points;
  }

  // The points no filter matches; a filter that matches none, or filters that leave no point, are errors.
  std::vector<Candidate> filter(std::vector<Candidate> points) const {
    if (s_.exclude.empty()) return points;
    std::vector<int> matches(s_.exclude.size(), 0);
    std::vector<Candidate> kept;
    for (auto& point : points) {
      bool excluded = false;
      for (std::size_t f = 0; f < s_.exclude.size(); ++f) {
        bool all = true;
        for (const auto& [key, text] : s_.exclude[f].values) all = all && point.cells[axis_of(key)] == text;
        if (all) matches[f] += 1;
        excluded = excluded || all;
      }
      if (!excluded) kept.push_back(std::move(point));
    }
    for (std::size_t f = 0; f < s_.exclude.size(); ++f) {
      if (matches[f] > 0) continue;
      std::vector<std::string> values;
      for (const auto& [key, text] : s_.exclude[f].values) values.push_back(key + "=" + text);
      throw InputError(fmt::format("{}:{}: {}: matches no point ({}); values are compared as written", file_,
                                   s_.exclude[f].line, s_.exclude[f].label, join(values)));
    }
    if (kept.empty()) {
      s_.exclude_node->fail(
          fmt::format("excludes every point ({} of {}): nothing would run", points.size(), points.size()));
    }
    return kept;
  }

  std::size_t axis_of(const std::string& key) const {
    for (std::size_t a = 0; a < s_.varied_keys.size(); ++a) {
      if (s_.varied_keys[a] == key) return a;
    }
    return s_.varied_keys.size();  // every key a point or filter names is a varied key
  }

  std::string describe(const std::vector<std::string>& cells) const {
    std::vector<std::string> parts;
    for (std::size_t a = 0; a < cells.size(); ++a) {
      if (!cells[a].empty()) parts.push_back(s_.varied_keys[a] + "=" + cells[a]);
    }
    return join(parts);
  }

 private:
  void add(Candidate point, std::vector<Candidate>& points) {
    point.cells = fillers_;
    for (const SweepValue* value : point.own) point.cells[axis_of(value->key)] = value->text;
    const auto [earlier, inserted] = seen_.emplace(point.cells, points.size());
    if (!inserted) {
      // Points of the product differ (vary's values and zip's positions do); a listed one may repeat any.
      const Candidate& first = points[earlier->second];
      throw InputError(fmt::format("{}:{}: {}: the same point as {} ({})", file_, point.line, point.label,
                                   first.label.empty() ? "one of vary's" : first.label,
                                   describe(point.cells)));
    }
    points.push_back(std::move(point));
  }

  const SweepSections& s_;
  std::string file_;
  std::vector<std::string> fillers_;
  std::map<std::vector<std::string>, std::size_t> seen_;
};

// vary's values, then the other values the points take.
std::vector<SweepAxis> axes_of(const SweepSections& s, const std::vector<Candidate>& points) {
  std::vector<SweepAxis> axes;
  for (std::size_t a = 0; a < s.varied_keys.size(); ++a) {
    SweepAxis axis{s.varied_keys[a], {}};
    if (a < s.vary.size()) {
      for (const auto& value : s.vary[a].values) axis.values.push_back(value.text);
    }
    for (const auto& point : points) {
      const std::string& cell = point.cells[a];
      if (std::find(axis.values.begin(), axis.values.end(), cell) == axis.values.end())
        axis.values.push_back(cell);
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

void read_header(const ConfigNode& root, Sweep& sweep) {
  sweep.name = stem(sweep.source);
  if (auto n = root.optional_child("name")) {
    sweep.name = n->scalar();
    for (char c : sweep.name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        n->fail(fmt::format("'{}' is not a sweep name: use letters, digits, '-', '_' and '.'", sweep.name));
    }
    if (sweep.name.empty() || sweep.name[0] == '.')
      n->fail("a sweep name must not be empty or start with '.'");
  }
  if (auto n = root.optional_child("description")) sweep.description = n->scalar();
  sweep.output_dir = "results/" + sweep.name;
  if (auto n = root.optional_child("output")) {
    sweep.output_dir = n->scalar();
    if (sweep.output_dir.empty()) n->fail("must not be empty");
  }
}

}  // namespace

std::string SweepPoint::describe(const std::vector<SweepAxis>& axes) const {
  return describe_values(axes, values);
}

std::string describe_values(const std::vector<SweepAxis>& axes, const std::vector<std::string>& values) {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < axes.size() && a < values.size(); ++a) {
    if (!values[a].empty()) parts.push_back(axes[a].key + "=" + values[a]);
  }
  return join(parts);
}

std::string Sweep::order() const {
  std::string text = product_points > 0 ? "cartesian product, the first key varying slowest" : "";
  for (const auto& group : zip_groups) text += fmt::format("; zipped, advancing together: {}", join(group));
  if (listed_points > 0)
    text += fmt::format("{}{} listed points", text.empty() ? "" : "; then ", listed_points);
  if (excluded_points > 0) text += fmt::format("; {} points excluded", excluded_points);
  return text;
}

Sweep parse_sweep(const std::string& yaml_text, const std::string& file,
                  const std::vector<ConfigSetting>& sets) {
  const ConfigNode root = ConfigNode::parse(yaml_text, file);
  root.expect_map(kSweepKeys);
  if (const auto kind = root.optional_child("kind"); kind && kind->scalar() != "training")
    kind->fail(fmt::format("a training sweep has kind 'training', not '{}'", kind->scalar()));
  Sweep sweep;
  sweep.source = file;
  read_header(root, sweep);
  const ConfigNode base_node = root.child("base");
  BaseConfig base = read_base(base_node, file);
  SweepSections sections = read_sweep_sections(root);
  // The command line's --set values join the sweep's `set`, replacing a key it sets; a varied key is not
  // theirs to change.
  for (const auto& set : sets) {
    const auto& varied = sections.varied_keys;
    if (std::find(varied.begin(), varied.end(), set.key) != varied.end()) {
      throw InputError(fmt::format("--set {}: {} varies {}; a key is set for every point or varied, not both",
                                   set.key, file, set.key));
    }
    SweepValue value{set.key, split(set.key, '.'), set.value, sweep_value_text(set.value), "--set " + set.key};
    auto& settings = sections.settings;
    const auto same = std::find_if(settings.begin(), settings.end(), [&](const auto& s) { return s.key == set.key; });
    if (same != settings.end()) {
      *same = value;
    } else {
      settings.push_back(value);
    }
  }
  const SweepPointBuilder builder(std::move(base), sections.settings, file);
  sweep.base = base_node.scalar();
  sweep.base_source = builder.base().source;
  for (const auto& setting : sections.settings) sweep.settings.push_back({setting.key, setting.text});
  sweep.zip_groups = sections.zip_groups;

  PointLister lister(sections, builder, file);
  const std::vector<Candidate> all = lister.list(sweep.product_points);
  sweep.listed_points = static_cast<int>(sections.listed.size());
  const std::vector<Candidate> kept = lister.filter(all);
  sweep.excluded_points = static_cast<int>(all.size() - kept.size());
  sweep.axes = axes_of(sections, kept);
  for (const auto& point : kept) {
    auto config = [&] {
      try {
        return builder.build(point.own);
      } catch (const InputError& error) {
        std::vector<std::string> own;
        for (const SweepValue* value : point.own) own.push_back(value->key + "=" + value->text);
        builder.fail(point.own, error, join(own));
      }
    };
    sweep.points.push_back(SweepPoint{static_cast<int>(sweep.points.size()), point.cells, config()});
  }
  return sweep;
}

Sweep load_sweep_file(const std::string& path) {
  return parse_sweep(read_input_file(path, "sweep file"), path, {});
}

}  // namespace tpusim::workloads
