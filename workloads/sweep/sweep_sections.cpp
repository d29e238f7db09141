#include "workloads/sweep/sweep_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "workloads/config/config_schema.hpp"

namespace tpusim::workloads {
namespace {

// The keys the sections give so far, so that no key is both a section and a key inside it (which would make
// the result depend on the order of substitution) and no key is both set and varied.
class KeyClaims {
 public:
  void claim(const std::string& key, const std::string& label, bool fixed, const ConfigNode& at) {
    for (const auto& earlier : claims_) {
      const bool nested = key.rfind(earlier.key + ".", 0) == 0 || earlier.key.rfind(key + ".", 0) == 0;
      if (nested)
        at.fail(fmt::format("overlaps {}: vary a section or keys inside it, not both", earlier.label));
      if (key == earlier.key && (fixed || earlier.fixed)) {
        at.fail(fmt::format("{} is also {}: a key is set for every point or varied, not both", key,
                            earlier.fixed ? "set by " + earlier.label : "varied by " + earlier.label));
      }
    }
    const bool known =
        std::any_of(claims_.begin(), claims_.end(), [&](const Claim& c) { return c.key == key; });
    if (!known) claims_.push_back({key, label, fixed});
  }

 private:
  struct Claim {
    std::string key, label;
    bool fixed;
  };
  std::vector<Claim> claims_;
};

SweepValue value_of(const std::string& key, const YAML::Node& node, std::string label) {
  return {key, split(key, '.'), node, sweep_value_text(node), std::move(label)};
}

// The items of a section that lists maps (points, exclude), each a non-empty map.
std::vector<ConfigNode> map_items(const ConfigNode& list, const std::string& list_what,
                                  const std::string& item_what) {
  std::vector<ConfigNode> items = list.items(list_what);
  for (const auto& item : items) {
    if (!item.yaml().IsMap() || item.yaml().size() == 0) item.fail("expected a map from " + item_what);
  }
  return items;
}

void read_set(const ConfigNode& set, SweepSections& s, KeyClaims& claims, const StudyKeyCheck& check_key) {
  if (!set.yaml().IsMap() || set.yaml().size() == 0)
    set.fail("expected a map from config keys (such as mesh.shape) to the value every point gets");
  for (const auto& key : set.keys()) {
    const ConfigNode value = set.child(key);
    check_key(key, value);
    claims.claim(key, "set." + key, true, value);
    s.settings.push_back(value_of(key, value.yaml(), "set." + key));
  }
}

// The keys zip names, read before vary so that a zipped list may repeat a value (its group may not).
std::set<std::string> zipped_keys(const std::optional<ConfigNode>& zip) {
  std::set<std::string> keys;
  if (!zip || !zip->yaml().IsSequence()) return keys;
  for (const auto& group : zip->yaml()) {
    if (!group.IsSequence()) continue;
    for (const auto& key : group) {
      if (key.IsScalar()) keys.insert(key.Scalar());
    }
  }
  return keys;
}

void read_vary(const ConfigNode& vary, const std::set<std::string>& zipped, SweepSections& s,
               KeyClaims& claims, const StudyKeyCheck& check_key) {
  if (!vary.yaml().IsMap() || vary.yaml().size() == 0)
    vary.fail("expected a map from config keys (such as mesh.shape) to lists of values");
  for (const auto& key : vary.keys()) {
    const ConfigNode list = vary.child(key);
    check_key(key, list);
    claims.claim(key, "vary." + key, false, list);
    if (!list.yaml().IsSequence()) list.fail("expected a list of values, such as [a, b]");
    if (list.yaml().size() == 0) list.fail("the list of values is empty");
    VaryList entry{key, {}};
    for (std::size_t i = 0; i < list.yaml().size(); ++i) {
      entry.values.push_back(value_of(key, list.yaml()[i], fmt::format("vary.{}[{}]", key, i)));
      if (zipped.count(key) != 0) continue;  // its group's tuples must differ instead
      const SweepValue& value = entry.values.back();
      for (std::size_t j = 0; j < i; ++j) {
        if (entry.values[j].text == value.text) {
          throw InputError(fmt::format("{}:{}: {}: {} repeats vary.{}[{}]", vary.file(), value.line(),
                                       value.label, value.text, key, j));
        }
      }
    }
    s.vary.push_back(std::move(entry));
  }
}

std::size_t vary_index(const SweepSections& s, const std::string& key) {
  for (std::size_t i = 0; i < s.vary.size(); ++i) {
    if (s.vary[i].key == key) return i;
  }
  return s.vary.size();
}

void read_zip(const ConfigNode& zip, SweepSections& s) {
  const std::vector<ConfigNode> groups =
      zip.items("groups of vary keys that advance together, such as [[hardware.topology, model.batch]]");
  std::vector<std::string> vary_keys;
  for (const auto& list : s.vary) vary_keys.push_back(list.key);
  std::vector<std::string> seen_in(s.vary.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const ConfigNode& group = groups[g];
    if (!group.yaml().IsSequence() || group.yaml().size() < 2)
      group.fail("expected a list of two or more keys of vary, such as [hardware.topology, model.batch]");
    std::vector<std::string> keys;
    std::vector<std::size_t> members;
    for (std::size_t k = 0; k < group.yaml().size(); ++k) {
      const ConfigNode item = group.item(k);
      const std::string key = item.scalar();
      const std::size_t index = vary_index(s, key);
      if (index == s.vary.size()) {
        item.fail(fmt::format("'{}' is not a key of vary{}; a zip group advances lists of vary together{}",
                              key, did_you_mean(key, vary_keys),
                              vary_keys.empty() ? "" : ", and vary has " + join(vary_keys)));
      }
      if (!seen_in[index].empty()) item.fail(fmt::format("{} is in {} already", key, seen_in[index]));
      seen_in[index] = group.key_path();
      const auto& first = s.vary[members.empty() ? index : members.front()];
      if (s.vary[index].values.size() != first.values.size()) {
        group.fail(fmt::format(
            "vary.{} has {} values but vary.{} has {}; the lists of a zip group advance together, so they "
            "must be as long",
            first.key, first.values.size(), key, s.vary[index].values.size()));
      }
      keys.push_back(key);
      members.push_back(index);
    }
    // Each position of the group is one point of it: two equal positions would be the same points twice.
    for (std::size_t i = 0; i < s.vary[members.front()].values.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        const bool same = std::all_of(members.begin(), members.end(), [&](std::size_t m) {
          return s.vary[m].values[i].text == s.vary[m].values[j].text;
        });
        if (same) {
          std::vector<std::string> texts;
          for (const std::size_t m : members) texts.push_back(s.vary[m].key + "=" + s.vary[m].values[i].text);
          group.fail(
              fmt::format("the values [{}] of its lists ({}) repeat the values [{}]", i, join(texts), j));
        }
      }
    }
    std::sort(members.begin(), members.end());
    s.zip_groups.push_back(keys);
    s.factors.push_back(members);  // placed in vary order below
  }
  for (std::size_t i = 0; i < s.vary.size(); ++i) {
    if (seen_in[i].empty()) s.factors.push_back({i});
  }
  // A group stands where its first key is in vary.
  std::stable_sort(s.factors.begin(), s.factors.end(),
                   [](const auto& a, const auto& b) { return a.front() < b.front(); });
}

void read_points(const ConfigNode& points, SweepSections& s, KeyClaims& claims,
                 const StudyKeyCheck& check_key) {
  for (const ConfigNode& point : map_items(points,
                                           "points, each a map from config keys to values, such as "
                                           "[{hardware.topology: tpu-v2-32, mesh.shape: batch:8;model:4}]",
                                           "config keys to values, such as {mesh.shape: batch:8;model:4}")) {
    std::vector<SweepValue> values;
    for (const auto& key : point.keys()) {
      const ConfigNode value = point.child(key);
      check_key(key, value);
      claims.claim(key, value.key_path(), false, value);
      values.push_back(value_of(key, value.yaml(), value.key_path()));
      if (std::find(s.varied_keys.begin(), s.varied_keys.end(), key) == s.varied_keys.end())
        s.varied_keys.push_back(key);
    }
    s.listed.push_back(std::move(values));
    s.listed_lines.push_back(point.line());
  }
}

void read_exclude(const ConfigNode& exclude, SweepSections& s) {
  for (const ConfigNode& filter :
       map_items(exclude,
                 "partial points, each a map from varied keys to values, such as "
                 "[{hardware.topology: tpu-v2-32, mesh.shape: batch:4;model:128}]",
                 "varied keys to values, such as {mesh.shape: batch:4;model:128}")) {
    SweepFilter parsed{filter.key_path(), filter.line(), {}};
    for (const auto& key : filter.keys()) {
      const ConfigNode value = filter.child(key);
      if (std::find(s.varied_keys.begin(), s.varied_keys.end(), key) == s.varied_keys.end()) {
        value.fail(fmt::format("{} is not varied{}; a filter names keys of vary or points, here {}", key,
                               did_you_mean(key, s.varied_keys), join(s.varied_keys)));
      }
      parsed.values.emplace_back(key, sweep_value_text(value.yaml()));
    }
    s.exclude.push_back(std::move(parsed));
  }
}

}  // namespace

void require_config_key(const std::string& key, const ConfigNode& at) {
  if (is_config_key(key)) return;
  const auto keys = config_keys();
  at.fail(fmt::format("'{}' is not a config key{}; valid keys are {}{}", key, did_you_mean(key, keys),
                      join(keys), config_subkeys_text()));
}

std::string sweep_value_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

SweepSections read_sweep_sections(const StudyFile& file, const ConfigNode& root,
                                  const StudyKeyCheck& check_key) {
  SweepSections s;
  KeyClaims claims;
  if (file.set) read_set(*file.set, s, claims, check_key);
  if (file.vary) {
    s.vary_node.emplace(*file.vary);
    read_vary(*file.vary, zipped_keys(file.zip), s, claims, check_key);
    for (const auto& list : s.vary) s.varied_keys.push_back(list.key);
  }
  if (file.zip) {
    read_zip(*file.zip, s);
  } else {
    for (std::size_t i = 0; i < s.vary.size(); ++i) s.factors.push_back({i});
  }
  if (file.points) {
    s.points_node.emplace(*file.points);
    read_points(*file.points, s, claims, check_key);
  }
  if (s.vary.empty() && s.listed.empty()) {
    root.fail(
        "a sweep needs vary (config keys and their lists of values, crossed) or points (a list of "
        "points), or both");
  }
  if (file.exclude) {
    s.exclude_node.emplace(*file.exclude);
    read_exclude(*file.exclude, s);
  }
  return s;
}

}  // namespace tpusim::workloads
