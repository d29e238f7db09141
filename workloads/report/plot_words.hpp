#pragma once
// Config keys and their values in the words a figure's reader knows, for axis labels, legends and category
// labels: "image size" rather than model.image_size, "16 per batch core" rather than the YAML
// {per: batch, value: 16}, "batch 16 × model 32" rather than batch:16;model:32. What each key's values look
// like is a table (plot_words.cpp); a key it lacks reads as its last part, and its values as written.
#include <string>

namespace tpusim::workloads {

// "mesh" for mesh.shape, "image size" for model.image_size, "matrix unit" for hardware.matrix_unit.
std::string key_in_words(const std::string& key);

// A value of `key` in words: a size per processor of a mesh axis ({per: batch, value: 16}) is
// "16 per batch core", a mesh shape "batch 16 × model 32", a mapping or layout "model on core+x, batch on
// y", a name with underscores (peak_rate) "peak rate"; nothing ("", the base config's value) is "default",
// but no faults ("") is "no faults".
std::string value_in_words(const std::string& key, const std::string& value);

// A setting that has to name its key to be read alone: "batch 512", "image size 1024", "fusion none"; one
// that says what it is keeps its words alone ("16 per batch core", "batch 16 × model 32").
std::string setting_in_words(const std::string& key, const std::string& value);

}  // namespace tpusim::workloads
