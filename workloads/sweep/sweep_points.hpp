#pragma once
// The points a study file's sections (sweep_sections.hpp) make, before any is resolved: vary's product (zip
// groups advancing together), then the listed points, each given the fillers' value of every varied key it
// leaves out; then exclude's filters. Shared by training sweeps (whose fillers are the base config's values)
// and collective studies (whose fillers are set's values or the keys' defaults). Repeated points, filters
// that match none and filters that leave nothing are InputErrors at their lines.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "workloads/sweep/sweep_sections.hpp"

namespace tpusim::workloads {

// A point before it is resolved: the values it gives and its cell of every varied key.
struct ListedPoint {
  std::vector<const SweepValue*> own;  // in vary order, or as the listed point writes them
  std::vector<std::string> cells;      // per varied key: its own value's text, else the filler
  std::string label;                   // "" for a point of the product, "points[P]" for a listed one
  int line = 0;                        // of a listed point
  // A product point's place: per factor, its value's index and, where an expansion replaced that value,
  // the expanded value's place in the order the expansion lists all it may become (so that they stand where
  // the value stood, in one order whatever each point leaves out).
  std::vector<std::pair<std::size_t, std::size_t>> rank;
  std::size_t expansion_rank = 0;  // set by the expansion
};

// A key's values across the points: vary's list, then the other values the points take, in order.
struct SweepAxis {
  std::string key;  // dotted key, "mesh.shape"
  // As written (flow YAML for lists and maps); "" where a training sweep's base leaves the key to its
  // default.
  std::vector<std::string> values;
};

// Turns one point into the points it stands for (collective.algorithm: all, one per registry row); the
// identity for most studies.
using PointExpansion = std::function<std::vector<ListedPoint>(ListedPoint)>;

// How the points were made, for reports: "cartesian product, the first key varying slowest" for vary alone,
// and what zip, listed points and exclude add to that.
std::string study_order(int product_points, const std::vector<std::vector<std::string>>& zip_groups,
                        int listed_points, int excluded_points);

class PointLister {
 public:
  // `fillers`: per varied key (sections.varied_keys), the text a point that leaves it out has.
  PointLister(const SweepSections& sections, std::vector<std::string> fillers, std::string file,
              PointExpansion expand = {});

  // The product of vary's factors, then the listed points, each expanded; a point equal to an earlier one is
  // an error. product_points: the product's count before expansion.
  std::vector<ListedPoint> list(int& product_points);
  // The points no filter matches; a filter that matches none, or filters that leave no point, are errors.
  std::vector<ListedPoint> filter(std::vector<ListedPoint> points) const;
  // vary's values, then the other values the points take.
  std::vector<SweepAxis> axes(const std::vector<ListedPoint>& points) const;

 private:
  std::size_t axis_of(const std::string& key) const;
  std::string describe(const std::vector<std::string>& cells) const;
  // factor_of: per vary list, its factor of the product (empty for a listed point).
  void add(ListedPoint point, std::vector<ListedPoint>& points, const std::vector<std::size_t>& factor_of);
  void add_one(ListedPoint point, std::vector<ListedPoint>& points);

  const SweepSections& s_;
  std::vector<std::string> fillers_;
  std::string file_;
  PointExpansion expand_;
  std::map<std::vector<std::string>, std::size_t> seen_;
};

}  // namespace tpusim::workloads
