#include "eval/report.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>
#include <utility>

#include "common/error.hpp"

namespace gatemap::eval {

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;  // name, value as written

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool is_number(const std::string& s, double* v = nullptr) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (*end != '\0') return false;
  if (v) *v = d;
  return true;
}

// The --stats JSON (an object of numbers, strings and objects of them), flattened:
// "seconds": {"seed": 1} gives "seconds.seed".
class JsonFields {
 public:
  JsonFields(const std::string& text, const std::string& path) : s_(text), path_(path) {}
  Fields parse() {
    Fields out;
    skip();
    object("", out);
    skip();
    if (at_ != s_.size()) fail("text after the object");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    const int64_t line = 1 + std::count(s_.begin(), s_.begin() + static_cast<int64_t>(std::min(at_, s_.size())), '\n');
    throw FormatError("'" + path_ + "' line " + std::to_string(line) + ": not a gatemap --stats JSON (" + what + ")");
  }
  void skip() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  void expect(char c) {
    skip();
    if (at_ >= s_.size() || s_[at_] != c) fail(std::string("expected '") + c + "'");
    ++at_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (at_ < s_.size() && s_[at_] != '"') {
      if (s_[at_] == '\\' && at_ + 1 < s_.size()) ++at_;
      out += s_[at_++];
    }
    if (at_ >= s_.size()) fail("unterminated string");
    ++at_;
    return out;
  }
  void object(const std::string& prefix, Fields& out) {
    expect('{');
    skip();
    if (at_ < s_.size() && s_[at_] == '}') {
      ++at_;
      return;
    }
    for (;;) {
      const std::string key = prefix + string();
      expect(':');
      skip();
      if (at_ >= s_.size()) fail("a value missing");
      if (s_[at_] == '{') {
        object(key + ".", out);
      } else if (s_[at_] == '[') {  // numbers: kept as written, "[1, 2, 3]"
        const size_t begin = at_;
        while (at_ < s_.size() && s_[at_] != ']') ++at_;
        if (at_ >= s_.size()) fail("unterminated array");
        ++at_;
        out.emplace_back(key, s_.substr(begin, at_ - begin));
      } else if (s_[at_] == '"') {
        out.emplace_back(key, string());
      } else {
        const size_t begin = at_;
        while (at_ < s_.size() && s_[at_] != ',' && s_[at_] != '}' && !std::isspace(static_cast<unsigned char>(s_[at_]))) {
          ++at_;
        }
        const std::string value = s_.substr(begin, at_ - begin);
        if (!is_number(value)) fail("'" + value + "' is no number");
        out.emplace_back(key, value);
      }
      skip();
      if (at_ < s_.size() && s_[at_] == ',') {
        ++at_;
        continue;
      }
      expect('}');
      return;
    }
  }
  const std::string& s_;
  const std::string& path_;
  size_t at_ = 0;
};

// Tab-separated rows of a table the eval commands print ('#' lines left out).
std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::istringstream cols(line);
    for (std::string c; std::getline(cols, c, '\t');) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    out += "<tr>";
    for (const std::string& c : rows[r]) out += (r == 0 ? "<th>" : "<td>") + escaped(c) + (r == 0 ? "</th>" : "</td>");
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

struct Bar {
  std::string label;
  double value;
  std::string text;  // the value as its input wrote it
  bool gpu = false;  // drawn in the GPU's colour
};

// Horizontal bars, one per label, scaled to the largest; each bar carries its value.
std::string bar_chart(const std::string& title, const std::vector<Bar>& bars, const std::string& unit) {
  if (bars.empty()) return "";
  double top = 0;
  for (const Bar& b : bars) top = std::max(top, b.value);
  const int row = 22, left = 190, width = 420, height = row * static_cast<int>(bars.size()) + 30;
  std::string out = "<figure><figcaption>" + escaped(title) + "</figcaption>\n<svg class=\"chart\" width=\"" +
                    std::to_string(left + width + 90) + "\" height=\"" + std::to_string(height) + "\">\n";
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const int y = 10 + row * static_cast<int>(i);
    const double w = top > 0 ? width * b.value / top : 0;
    out += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(y + 14) + "\" text-anchor=\"end\">" +
           escaped(b.label) + "</text><rect class=\"bar" + (b.gpu ? " gpu" : "") + "\" x=\"" + std::to_string(left) +
           "\" y=\"" + std::to_string(y) + "\" width=\"" + number(std::max(w, 0.5)) + "\" height=\"" +
           std::to_string(row - 6) + "\" data-value=\"" + escaped(b.text) + "\"><title>" + escaped(b.label) + ": " +
           escaped(b.text) + " " + unit + "</title></rect><text x=\"" + number(left + w + 4) + "\" y=\"" +
           std::to_string(y + 14) + "\">" + escaped(b.text) + "</text>\n";
  }
  return out + "</svg></figure>\n";
}

// The MAPQ/accuracy curve: fraction of reads mapped against the error rate among them, a
// point per MAPQ threshold (as mapeval plots it).
std::string mapq_curve(const std::vector<std::vector<std::string>>& rows) {
  struct Point {
    std::string mapq;
    double mapped, error;
    std::string mapped_text, error_text;  // as `eval map` wrote them
  };
  std::vector<Point> points;
  for (size_t r = 1; r < rows.size(); ++r) {
    double m = 0, e = 0;
    if (rows[r].size() >= 5 && is_number(rows[r][2], &m) && is_number(rows[r][4], &e)) points.push_back({rows[r][0], m, e, rows[r][2], rows[r][4]});
  }
  if (points.empty()) return "";
  double emax = 1e-6, mmin = 1;
  for (const Point& p : points) emax = std::max(emax, p.error), mmin = std::min(mmin, p.mapped);
  mmin = std::max(0.0, mmin - 0.01);
  const int left = 70, top = 20, w = 420, h = 260;
  const auto px = [&](double e) { return left + w * e / emax; };
  const auto py = [&](double m) { return top + h - h * (m - mmin) / std::max(1e-9, 1 - mmin); };
  std::string path, dots;
  for (const Point& p : points) {
    path += (path.empty() ? "M" : " L") + number(px(p.error)) + " " + number(py(p.mapped));
    dots += "<circle class=\"point\" cx=\"" + number(px(p.error)) + "\" cy=\"" + number(py(p.mapped)) +
            "\" r=\"4\" data-mapq=\"" + escaped(p.mapq) + "\" data-value=\"" + escaped(p.mapped_text) +
            "\"><title>MAPQ >= " + escaped(p.mapq) + ": " + escaped(p.mapped_text) + " mapped, error rate " +
            escaped(p.error_text) +
            "</title></circle><text x=\"" + number(px(p.error) + 6) + "\" y=\"" + number(py(p.mapped) - 6) + "\">" +
            escaped(p.mapq) + "</text>\n";
  }
  return "<figure><figcaption>MAPQ/accuracy: fraction mapped against the error rate, a point per MAPQ threshold"
         "</figcaption>\n<svg class=\"chart\" width=\"" + std::to_string(left + w + 60) + "\" height=\"" +
         std::to_string(top + h + 40) + "\">\n<line x1=\"" + std::to_string(left) + "\" y1=\"" +
         std::to_string(top + h) + "\" x2=\"" + std::to_string(left + w) + "\" y2=\"" + std::to_string(top + h) +
         "\" class=\"axis\"/><line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(top) + "\" x2=\"" +
         std::to_string(left) + "\" y2=\"" + std::to_string(top + h) + "\" class=\"axis\"/>\n<text x=\"" +
         std::to_string(left) + "\" y=\"" + std::to_string(top + h + 30) + "\">error rate 0 .. " + number(emax) +
         "</text><text x=\"4\" y=\"" + std::to_string(top + 10) + "\">mapped " + number(mmin) + " .. 1</text>\n<path d=\"" +
         path + "\" class=\"curve\"/>\n" + dots + "</svg></figure>\n";
}

// A histogram map's --stats holds (insert sizes, MAPQ): a bar per bin of `bin_bp`
// units, over the bins that hold any; the last bin holds the larger values too.
std::string histogram_chart(const std::string& title, const std::string& name, const std::string& array,
                            double bin_bp, const std::string& unit, const std::string& path) {
  std::vector<double> bins;
  std::istringstream in(array.substr(1, array.size() - 2));
  for (std::string cell; std::getline(in, cell, ',');) {
    double v = 0;
    const size_t at = cell.find_first_not_of(' ');
    if (at == std::string::npos || !is_number(cell.substr(at), &v)) {
      throw FormatError("'" + path + "': " + name + " holds '" + cell + "', no number");
    }
    bins.push_back(v);
  }
  size_t first = 0, last = bins.size();
  while (first < last && bins[first] == 0) ++first;
  while (last > first && bins[last - 1] == 0) --last;
  if (first == last) return "";
  double top = 0;
  for (size_t i = first; i < last; ++i) top = std::max(top, bins[i]);
  const int left = 50, h = 200, bar = std::max(3, 480 / static_cast<int>(last - first));
  std::string out = "<figure><figcaption>" + escaped(title) + "</figcaption>\n<svg class=\"chart\" width=\"" +
                    std::to_string(left + bar * static_cast<int>(last - first) + 60) + "\" height=\"" +
                    std::to_string(h + 40) + "\">\n";
  for (size_t i = first; i < last; ++i) {
    const double bh = h * bins[i] / top;
    const int x = left + bar * static_cast<int>(i - first);
    const std::string from = number(bin_bp * static_cast<double>(i));
    out += "<rect class=\"bar\" x=\"" + std::to_string(x) + "\" y=\"" + number(10 + h - bh) + "\" width=\"" +
           std::to_string(bar - 1) + "\" height=\"" + number(std::max(bh, 0.5)) + "\" data-value=\"" +
           number(bins[i]) + "\"><title>" + from + (i + 1 == bins.size() ? "+" : "-" + number(bin_bp * (i + 1.0))) +
           " " + unit + ": " + number(bins[i]) + "</title></rect>\n";
  }
  out += "<text x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(h + 30) + "\">" +
         number(bin_bp * static_cast<double>(first)) + " " + unit + "</text><text x=\"" +
         std::to_string(left + bar * static_cast<int>(last - first)) + "\" y=\"" + std::to_string(h + 30) +
         "\" text-anchor=\"end\">" + number(bin_bp * static_cast<double>(last)) + " " + unit + "</text>\n";
  return out + "</svg></figure>\n";
}

std::string inserts(const std::string& array, const std::string& bin_text, const std::string& path) {
  if (array.empty()) return "";
  double bin_bp = 0;
  if (!is_number(bin_text, &bin_bp) || bin_bp <= 0) throw FormatError("'" + path + "': no insert_histogram_bin_bp");
  return histogram_chart("Proper pairs by insert size", "insert_histogram", array, bin_bp, "bp", path);
}

std::string stats_section(const ReportInput& in) {
  const Fields fields = JsonFields(in.text, in.path).parse();
  std::string insert_array, insert_bin, mapq_array;
  std::vector<std::vector<std::string>> rows{{"field", "value"}};
  std::vector<Bar> counts, times, depth;
  for (const auto& [name, value] : fields) {
    rows.push_back({name, value});
    if (name == "insert_histogram") insert_array = value;
    if (name == "insert_histogram_bin_bp") insert_bin = value;
    if (name == "mapq_histogram") mapq_array = value;
    double v = 0;
    if (!is_number(value, &v)) continue;
    if (name.rfind("depth.", 0) == 0) {
      depth.push_back({name.substr(6), v, value});
      continue;
    }
    const bool seconds = name.rfind("seconds.", 0) == 0 || (name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0);
    if (seconds && name != "total_s" && name != "seconds.total") {
      // A GPU's part of a stage: map's seed_device, filter_kernel, verify_device; call's kernel time.
      const bool gpu = name.find("device") != std::string::npos || name.find("kernel") != std::string::npos;
      times.push_back({name.substr(name.rfind("seconds.", 0) == 0 ? 8 : 0), v, value, gpu});
    } else if (!seconds && name.find("_ms") == std::string::npos && name.find("insert") == std::string::npos &&
               value.find('.') == std::string::npos) {
      counts.push_back({name, v, value});
    }
  }
  return bar_chart("Counts", counts, "") +
         inserts(insert_array, insert_bin, in.path) +
         (mapq_array.empty() ? std::string()
                             : histogram_chart("Mapped reads by MAPQ", "mapq_histogram", mapq_array, 1, "MAPQ", in.path)) +
         bar_chart("Depth of coverage by contig (aligned bases / length)", depth, "x") +
         bar_chart("Stage times (GPU parts in green)", times, "s") + "<details><summary>every field</summary>\n" +
         table(rows) + "</details>\n";
}

std::string eval_vcf_section(const std::vector<std::vector<std::string>>& rows) {
  std::vector<Bar> bars;
  for (size_t r = 1; r < rows.size(); ++r) {
    double p = 0, rc = 0, f = 0;
    if (rows[r].size() < 7 || !is_number(rows[r][4], &p) || !is_number(rows[r][5], &rc) || !is_number(rows[r][6], &f)) {
      continue;
    }
    bars.push_back({rows[r][0] + " F1", f, rows[r][6]});
    bars.push_back({rows[r][0] + " precision", p, rows[r][4]});
    bars.push_back({rows[r][0] + " recall", rc, rows[r][5]});
  }
  return bar_chart("F1, precision and recall by variant type", bars, "") + table(rows);
}

}  // namespace

std::string report_html(const std::vector<ReportInput>& inputs) {
  std::string body;
  for (const ReportInput& in : inputs) {
    size_t first = in.text.find_first_not_of(" \t\r\n");
    const std::string start = first == std::string::npos ? "" : in.text.substr(first, 20);
    body += "<section><h2>" + escaped(in.path) + "</h2>\n";
    if (start.rfind("{", 0) == 0) {
      body += stats_section(in);
    } else if (start.rfind("class\tTP", 0) == 0) {
      body += eval_vcf_section(rows_of(in.text));
    } else if (start.rfind("reads\t", 0) == 0) {
      const auto rows = rows_of(in.text);
      std::vector<std::vector<std::string>> curve;
      for (const auto& r : rows) {
        if (!curve.empty() || (!r.empty() && r[0] == "min_mapq")) curve.push_back(r);
      }
      body += mapq_curve(curve) + table(rows);
    } else {
      throw FormatError("'" + in.path + "' line 1: not a --stats JSON nor a table of 'gatemap eval map' or 'eval vcf'");
    }
    body += "</section>\n";
  }
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gatemap report</title>\n<style>\n"
         "body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse;margin:1em 0}"
         "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#eee}"
         "svg text{font-size:12px}rect.bar{fill:#4a78b5}rect.bar.gpu{fill:#3a9d5d}"
         "path.curve{fill:none;stroke:#4a78b5;stroke-width:2}circle.point{fill:#c0504d}line.axis{stroke:#555}"
         "\n</style></head><body>\n<h1>gatemap report</h1>\n" +
         body + "</body></html>\n";
}

}  // namespace gatemap::eval
