#pragma once
// What the code under test writes on std::cerr while the object lives: the notes and warnings a library
// prints beside its results. Header only, so that the test binaries of every layer can share it.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace tpusim::test {

class StderrCapture {
 public:
  StderrCapture() : saved_(std::cerr.rdbuf(captured_.rdbuf())) {}
  ~StderrCapture() { std::cerr.rdbuf(saved_); }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  std::string text() const { return captured_.str(); }
  std::vector<std::string> lines() const {
    std::istringstream in(captured_.str());
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

 private:
  std::ostringstream captured_;
  std::streambuf* saved_;
};

}  // namespace tpusim::test
