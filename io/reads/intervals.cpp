#include "io/reads/intervals.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>

#include "common/error.hpp"
#include "io/reads/line_reader.hpp"

namespace gatemap::io {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A non-negative integer; commas (1,000,000) allowed where `commas`.
bool parse_position(std::string_view text, bool commas, int64_t& out) {
  std::string digits;
  for (char c : text) {
    if (commas && c == ',') continue;
    digits += c;
  }
  if (digits.empty() || digits.size() > 18) return false;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  return ec == std::errc() && end == digits.data() + digits.size() && out >= 0;
}

class Parser {
 public:
  explicit Parser(const std::vector<std::pair<std::string, int64_t>>& contigs) : contigs_(contigs) {
    for (size_t i = 0; i < contigs.size(); ++i) index_[contigs[i].first] = static_cast<int>(i);
  }

  void region(const std::string& spec) {
    const auto bad = [&](const std::string& why) { throw UsageError("-L '" + spec + "': " + why); };
    if (spec.empty()) bad("empty interval");
    if (index_.count(spec)) {  // a whole contig (names may contain ':')
      add(index_.at(spec), 0, contigs_[index_.at(spec)].second, bad);
      return;
    }
    const size_t colon = spec.rfind(':');
    if (colon == std::string::npos) bad("no such contig in the reference");
    const std::string name = spec.substr(0, colon);
    const auto it = index_.find(name);
    if (it == index_.end()) bad("no contig '" + name + "' in the reference");
    const std::string_view range = std::string_view(spec).substr(colon + 1);
    const size_t dash = range.find('-');
    int64_t beg = 0, end = contigs_[it->second].second;
    if (!parse_position(range.substr(0, dash), true, beg) || beg < 1) bad("the begin must be a position >= 1");
    if (dash != std::string_view::npos && !parse_position(range.substr(dash + 1), true, end)) {
      bad("the end must be a position");
    }
    if (end < beg) bad("the end lies before the begin");  // 1-based, inclusive: 100-100 is one base
    add(it->second, beg - 1, end, bad);
  }

  void bed(const std::string& path) {
    io::LineReader in(path);
    std::string_view line;
    while (in.next(line)) {
      const auto bad = [&](const std::string& why) {
        throw FormatError("'" + path + "' line " + std::to_string(in.line_number()) + ": " + why);
      };
      if (line.empty() || line[0] == '#' || line.substr(0, 5) == "track" || line.substr(0, 7) == "browser") continue;
      std::vector<std::string_view> f;
      size_t at = 0;
      while (f.size() < 3) {
        const size_t tab = line.find('\t', at);
        f.push_back(line.substr(at, tab == std::string_view::npos ? std::string_view::npos : tab - at));
        if (tab == std::string_view::npos) break;
        at = tab + 1;
      }
      if (f.size() < 3) bad("a BED line needs chrom, start and end separated by tabs");
      const auto it = index_.find(std::string(f[0]));
      if (it == index_.end()) bad("no contig '" + std::string(f[0]) + "' in the reference");
      int64_t beg = 0, end = 0;
      if (!parse_position(f[1], false, beg) || !parse_position(f[2], false, end)) bad("start and end must be integers");
      add(it->second, beg, end, bad);
    }
  }

  std::vector<Interval> merged() {
    std::sort(out_.begin(), out_.end(), [](const Interval& a, const Interval& b) {
      return a.contig != b.contig ? a.contig < b.contig : a.begin < b.begin;
    });
    std::vector<Interval> merged;
    for (const Interval& iv : out_) {
      if (!merged.empty() && merged.back().contig == iv.contig && iv.begin <= merged.back().end) {
        merged.back().end = std::max(merged.back().end, iv.end);
      } else {
        merged.push_back(iv);
      }
    }
    return merged;
  }

 private:
  template <typename Bad>
  void add(int contig, int64_t beg, int64_t end, const Bad& bad) {
    const int64_t len = contigs_[contig].second;
    if (end < beg) bad("the end lies before the begin");
    if (beg >= len) bad("begins past the end of '" + contigs_[contig].first + "' (" + std::to_string(len) + " bp)");
    if (end > beg) out_.push_back({contig, beg, std::min(end, len)});
  }

  const std::vector<std::pair<std::string, int64_t>>& contigs_;
  std::map<std::string, int> index_;
  std::vector<Interval> out_;
};

}  // namespace

std::vector<Interval> parse_intervals(const std::vector<std::string>& specs,
                                      const std::vector<std::pair<std::string, int64_t>>& contigs) {
  Parser parser(contigs);
  for (const std::string& spec : specs) {
    if (ends_with(spec, ".bed") || ends_with(spec, ".bed.gz")) {
      parser.bed(spec);
    } else {
      parser.region(spec);
    }
  }
  return parser.merged();
}

}  // namespace gatemap::io
