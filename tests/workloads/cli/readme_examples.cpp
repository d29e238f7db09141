#include "readme_examples.hpp"

#include <algorithm>
#include <sstream>

namespace tpusim::cli_test {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Whether the line is a fence ("```" or "```sh"), and its language ("" or "sh").
bool is_fence(const std::string& line, std::string& language) {
  if (!starts_with(line, "```")) return false;
  language = line.substr(3);
  while (!language.empty() && (language.back() == ' ' || language.back() == '\r')) language.pop_back();
  return true;
}

// The inline code spans of a stretch of prose, line breaks inside a span read as spaces (as Markdown does).
std::vector<std::string> code_spans(const std::vector<std::string>& prose) {
  std::string text;
  for (const auto& line : prose) text += line + "\n";
  std::vector<std::string> spans;
  for (std::size_t open = text.find('`'); open != std::string::npos; open = text.find('`', open)) {
    const std::size_t close = text.find('`', open + 1);
    if (close == std::string::npos) break;
    std::string span = text.substr(open + 1, close - open - 1);
    for (char& c : span) {
      if (c == '\n') c = ' ';
    }
    spans.push_back(span);
    open = close + 1;
  }
  return spans;
}

bool names_a_program(const std::string& span) {
  return span == "tpusim" || starts_with(span, "tpusim ") || starts_with(span, "build/");
}

bool has_options(const std::vector<std::string>& words) {
  for (const auto& word : words) {
    if (starts_with(word, "-")) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> split_command(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (const char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '#' && !in_word) {
      break;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

Readme parse_readme(const std::string& markdown, const std::vector<std::vector<std::string>>& outside_tour) {
  Readme readme;
  readme.text = markdown;
  const auto lines = lines_of(markdown);
  std::vector<std::string> prose;  // since the last fenced block
  struct Pending {
    int line;
    std::vector<std::string> spans;
    std::vector<std::string> lines;
  };
  std::vector<Pending> blocks;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string language;
    if (!is_fence(lines[i], language)) {
      prose.push_back(lines[i]);
      continue;
    }
    std::vector<std::string> body;
    std::size_t end = i + 1;
    for (; end < lines.size(); ++end) {
      std::string closing;
      if (is_fence(lines[end], closing) && closing.empty()) break;
      body.push_back(lines[end]);
    }
    if (language == "sh") {
      bool tour = false;
      for (const auto& line : body) tour = tour || starts_with(line, "T=");
      for (const auto& line : body) {
        if (!tour || !starts_with(line, "$T ")) continue;
        auto words = split_command(line.substr(3));
        words.insert(words.begin(), "tpusim");
        readme.tour.push_back(words);
      }
    } else if (language.empty()) {
      blocks.push_back({static_cast<int>(i + 1), code_spans(prose), body});
    }
    prose.clear();
    i = end;
  }
  const auto& tour = readme.tour.empty() ? outside_tour : readme.tour;
  for (const auto& block : blocks) {
    ReadmeOutput output;
    output.line = block.line;
    output.lines = block.lines;
    for (const auto& span : block.spans) {
      if (names_a_program(span)) output.command_text = span;
    }
    output.command = split_command(output.command_text);
    if (output.command.empty()) {
      output.problem = "no `tpusim ...` or `build/...` code span in the prose before it names its command";
    } else if (output.command.size() == 2 && !has_options(output.command) && output.command[0] == "tpusim") {
      output.problem = "the tour has no line running `" + output.command_text + "`";
      for (const auto& line : tour) {
        if (line.size() >= 2 && line[1] == output.command[1]) {
          output.command = line;
          output.problem.clear();
          break;
        }
      }
    }
    readme.outputs.push_back(output);
  }
  return readme;
}

bool outside_the_sources(const std::filesystem::path& folder_name) {
  const std::string name = folder_name.string();
  return starts_with(name, "build") || starts_with(name, ".");
}

std::vector<std::filesystem::path> markdown_documents(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::vector<fs::path> documents;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && outside_the_sources(it->path().filename())) {
      it.disable_recursion_pending();
    } else if (it->is_regular_file() && it->path().extension() == ".md") {
      documents.push_back(fs::relative(it->path(), root));
    }
  }
  std::sort(documents.begin(), documents.end(), [](const fs::path& a, const fs::path& b) {
    const bool a_readme = a == "README.md", b_readme = b == "README.md";
    return a_readme != b_readme ? a_readme : a.generic_string() < b.generic_string();
  });
  return documents;
}

}  // namespace tpusim::cli_test
