#pragma once
// A twisted torus: the wraparound link of one dimension lands `shift` chips further along another dimension,
// so that going round that dimension also travels along the other. Camara, Moreto et al. (IEEE TPDS 2010,
// "Twisted Torus Topologies for Enhanced Interconnection Networks") show that on an a x 2a torus shifting the
// short dimension's wraparound by a halves the diameter's excess and doubles the bisection; TPU v4 offers
// such slices ("4x4x8_twisted"; Jouppi et al., ISCA 2023; Cloud TPU docs, "Twisted tori topologies").
// Written in a topology spec as twist_<dimension>=<along>+<shift>, such as torus:4x4x8,twist_x=z+4.
#include <string>
#include <vector>

namespace tpusim::topo {

// The names of the chip dimensions, as specs, faults, twists and group axes write them.
constexpr const char* kChipAxisNames[] = {"x", "y", "z"};

struct Twist {
  int dimension;  // the dimension whose wraparound is shifted
  int along;      // the dimension it shifts along
  int shift;      // chips along `along`, 0 < shift < its size, and dividing it

  // "x=z+4" as the spec writes it (without the "twist_").
  std::string text() const;
};

// InputError unless every twist fits a torus of these sizes: distinct dimensions of size >= 2, a dimension
// twisted at most once and not along a twisted one, and a shift that divides the size it shifts along.
void check_twists(const std::vector<Twist>& twists, const std::vector<int>& chip_dims, bool wraparound,
                  const std::string& topology_name);

// "z+4" for the twist of `dimension` (axis names x, y, z); InputError naming the key otherwise.
Twist parse_twist(int dimension, const std::string& value, int dimensions, const std::string& topology_name);

}  // namespace tpusim::topo
