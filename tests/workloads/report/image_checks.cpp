#include "image_checks.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace tpusim::test {
namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ':' || c == '.';
}

}  // namespace

std::string png_problem(const std::filesystem::path& path) {
  const std::string bytes = read_all(path);
  const std::string signature = "\x89PNG\r\n\x1a\n";
  if (bytes.size() < 8 + 8 + 13) return path.string() + ": shorter than a PNG header";
  if (bytes.compare(0, 8, signature) != 0) return path.string() + ": no PNG signature";
  if (big_endian(bytes, 8) != 13 || bytes.compare(12, 4, "IHDR") != 0)
    return path.string() + ": the first chunk is not a 13-byte IHDR";
  if (big_endian(bytes, 16) == 0 || big_endian(bytes, 20) == 0)
    return path.string() + ": IHDR gives a width or height of 0";
  return "";
}

std::string svg_problem(const std::filesystem::path& path) {
  const std::string text = read_all(path);
  std::vector<std::string> open;
  std::string root;
  std::size_t at = 0;
  auto fail = [&](const std::string& what) {
    return path.string() + ": " + what + " at byte " + std::to_string(at);
  };
  while ((at = text.find('<', at)) != std::string::npos) {
    auto skip_to = [&](const std::string& end) {
      const std::size_t found = text.find(end, at);
      at = found == std::string::npos ? std::string::npos : found + end.size();
      return found != std::string::npos;
    };
    if (text.compare(at, 4, "<!--") == 0) {
      if (!skip_to("-->")) return fail("an unclosed comment");
    } else if (text.compare(at, 9, "<![CDATA[") == 0) {
      if (!skip_to("]]>")) return fail("an unclosed CDATA section");
    } else if (text.compare(at, 2, "<?") == 0) {
      if (!skip_to("?>")) return fail("an unclosed processing instruction");
    } else if (text.compare(at, 2, "<!") == 0) {
      // The DOCTYPE, possibly with an internal subset in brackets.
      const std::size_t bracket = text.find('[', at), close = text.find('>', at);
      if (close == std::string::npos) return fail("an unclosed declaration");
      if (bracket != std::string::npos && bracket < close) {
        if (!skip_to("]>")) return fail("an unclosed DOCTYPE subset");
      } else {
        at = close + 1;
      }
    } else {
      const bool closing = text.compare(at, 2, "</") == 0;
      std::size_t name_end = at + (closing ? 2 : 1);
      while (name_end < text.size() && name_char(text[name_end])) ++name_end;
      const std::string name = text.substr(at + (closing ? 2 : 1), name_end - at - (closing ? 2 : 1));
      if (name.empty()) return fail("a '<' that starts no element");
      // The tag ends at the first '>' outside a quoted attribute value.
      std::size_t end = name_end;
      char quote = 0;
      for (; end < text.size(); ++end) {
        if (quote != 0) {
          if (text[end] == quote) quote = 0;
        } else if (text[end] == '"' || text[end] == '\'') {
          quote = text[end];
        } else if (text[end] == '>') {
          break;
        }
      }
      if (end >= text.size()) return fail("an unclosed tag <" + name);
      const bool empty = !closing && text[end - 1] == '/';
      if (closing) {
        if (open.empty()) return fail("</" + name + "> closes nothing open");
        if (open.back() != name) return fail("</" + name + "> closes <" + open.back() + ">");
        open.pop_back();
      } else {
        if (open.empty()) {
          if (!root.empty()) return fail("a second root element <" + name + ">");
          root = name;
        }
        if (!empty) open.push_back(name);
      }
      at = end + 1;
    }
    if (at == std::string::npos) break;
  }
  if (!open.empty()) return path.string() + ": <" + open.back() + "> is never closed";
  if (root != "svg") return path.string() + ": the root element is <" + root + ">, not <svg>";
  return "";
}

bool have_gnuplot() {
  const char* path = std::getenv("PATH");
  std::istringstream folders(path != nullptr ? path : "");
  for (std::string folder; std::getline(folders, folder, ':');) {
    if (::access((folder + "/gnuplot").c_str(), X_OK) == 0) return true;
  }
  return false;
}

NoGnuplot::NoGnuplot() : saved_path_(std::getenv("PATH") != nullptr ? std::getenv("PATH") : "") {
  ::setenv("PATH", "/nonexistent", 1);
}

NoGnuplot::~NoGnuplot() { ::setenv("PATH", saved_path_.c_str(), 1); }

}  // namespace tpusim::test
