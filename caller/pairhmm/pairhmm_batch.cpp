// PairHmmBatch bookkeeping and the PairHMM benchmark file reader.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <filesystem>
#include <string>

#include "caller/pairhmm/pairhmm.hpp"
#include "common/error.hpp"
#include "io/reads/line_reader.hpp"

namespace gatemap::caller::pairhmm {

int32_t PairHmmBatch::add_read(std::string_view bases, const std::vector<uint8_t>& base,
                               const std::vector<uint8_t>& ins, const std::vector<uint8_t>& del,
                               const std::vector<uint8_t>& gcp) {
  const size_t n = bases.size();
  if (n == 0) throw Error("pair-HMM read is empty");
  if (base.size() != n || ins.size() != n || del.size() != n || gcp.size() != n) {
    throw Error("pair-HMM read of " + std::to_string(n) + " bases has quality strings of other lengths");
  }
  read_begin.push_back(static_cast<int64_t>(read_bases.size()));
  read_len.push_back(static_cast<int32_t>(n));
  read_bases.insert(read_bases.end(), bases.begin(), bases.end());
  base_q.insert(base_q.end(), base.begin(), base.end());
  ins_q.insert(ins_q.end(), ins.begin(), ins.end());
  del_q.insert(del_q.end(), del.begin(), del.end());
  gcp_q.insert(gcp_q.end(), gcp.begin(), gcp.end());
  return static_cast<int32_t>(read_len.size() - 1);
}

int32_t PairHmmBatch::add_haplotype(std::string_view bases) {
  if (bases.empty()) throw Error("pair-HMM haplotype is empty");
  hap_begin.push_back(static_cast<int64_t>(hap_bases.size()));
  hap_len.push_back(static_cast<int32_t>(bases.size()));
  hap_bases.insert(hap_bases.end(), bases.begin(), bases.end());
  return static_cast<int32_t>(hap_len.size() - 1);
}

void PairHmmBatch::add_group(int32_t first_read, int32_t n_reads, int32_t first_hap, int32_t n_haps) {
  if (first_read < 0 || n_reads < 0 || first_read + n_reads > static_cast<int32_t>(read_len.size()) ||
      first_hap < 0 || n_haps < 0 || first_hap + n_haps > static_cast<int32_t>(hap_len.size())) {
    throw Error("pair-HMM group refers to reads or haplotypes that are not in the batch");
  }
  groups.push_back({first_read, n_reads, first_hap, n_haps});
}

size_t PairHmmBatch::pair_count() const {
  size_t n = 0;
  for (const Group& g : groups) n += static_cast<size_t>(g.n_reads) * static_cast<size_t>(g.n_haps);
  return n;
}

std::vector<std::pair<int32_t, int32_t>> PairHmmBatch::pairs() const {
  std::vector<std::pair<int32_t, int32_t>> out;
  out.reserve(pair_count());
  for (const Group& g : groups) {
    for (int32_t r = 0; r < g.n_reads; ++r) {
      for (int32_t h = 0; h < g.n_haps; ++h) out.emplace_back(g.first_read + r, g.first_hap + h);
    }
  }
  return out;
}

int64_t PairHmmBatch::cell_count() const {
  int64_t cells = 0;
  for (const Group& g : groups) {
    int64_t rl = 0, hl = 0;
    for (int32_t r = 0; r < g.n_reads; ++r) rl += read_len[g.first_read + r];
    for (int32_t h = 0; h < g.n_haps; ++h) hl += hap_len[g.first_hap + h];
    cells += rl * hl;
  }
  return cells;
}

namespace {

// Splits a line into up to kMax whitespace-separated tokens; returns how many there
// are (kMax + 1 when there are more). No allocation: the parser's hot loop.
constexpr int kMaxTokens = 5;
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'; }
int tokens(std::string_view line, std::string_view (&out)[kMaxTokens]) {
  int n = 0;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    if (j > i) {
      if (n == kMaxTokens) return n + 1;
      out[n++] = line.substr(i, j - i);
    }
    i = j;
  }
  return n;
}

bool is_base(char c) { return c == 'A' || c == 'C' || c == 'G' || c == 'T' || c == 'N'; }

// Appends the Phred+33 string's values; false if a character lies outside Phred+33.
bool append_phred33(std::string_view s, std::vector<uint8_t>& out) {
  const size_t at = out.size();
  out.insert(out.end(), s.begin(), s.end());
  uint8_t lo = 255, hi = 0;  // min/max reductions: the loop vectorises
  for (size_t i = at; i < out.size(); ++i) {
    const uint8_t c = out[i];
    lo = std::min(lo, c), hi = std::max(hi, c);
    out[i] = static_cast<uint8_t>(c - 33);
  }
  return out.size() == at || (lo >= 33 && hi <= 126);
}

// Room for a file of `bytes` characters, most of them read lines (bases and four
// quality strings of equal length): growing vectors would copy each several times.
void reserve_for(size_t bytes, PairHmmBatch& batch) {
  const size_t per_string = bytes / 5;
  for (auto* v : {&batch.base_q, &batch.ins_q, &batch.del_q, &batch.gcp_q}) v->reserve(v->size() + per_string);
  batch.read_bases.reserve(batch.read_bases.size() + per_string);
}

constexpr int kNotACount = INT_MIN;
int parse_count(std::string_view t) {
  int v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && end == t.data() + t.size() ? v : kNotACount;
}

}  // namespace

void read_pairhmm_file(const std::string& path, PairHmmBatch& batch) {
  io::LineReader in(path);
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  const bool plain = path.size() < 3 || path.compare(path.size() - 3, 3, ".gz") != 0;
  if (!ec && plain) reserve_for(static_cast<size_t>(bytes), batch);
  std::string_view line;
  // The message is built only for an error (the file has millions of lines).
  auto fail = [&](const std::string& what) -> FormatError {
    return FormatError(path + " line " + std::to_string(in.line_number()) + ": " + what);
  };
  std::string_view t[kMaxTokens];
  auto next_tokens = [&] {
    while (in.next(line)) {
      const int n = tokens(line, t);
      if (n > 0) return n;
    }
    return 0;
  };
  for (int n; (n = next_tokens()) > 0;) {
    if (n != 2) throw fail("expected \"<reads> <haplotypes>\"");
    const int n_reads = parse_count(t[0]), n_haps = parse_count(t[1]);
    if (n_reads == kNotACount || n_haps == kNotACount) {
      throw fail("expected two counts, found \"" + std::string(line) + "\"");
    }
    if (n_reads <= 0 || n_haps <= 0) throw fail("counts must be positive");
    const int32_t first_read = static_cast<int32_t>(batch.read_len.size());
    const int32_t first_hap = static_cast<int32_t>(batch.hap_len.size());
    for (int r = 0; r < n_reads; ++r) {
      const int k = next_tokens();
      if (k == 0) throw FormatError(path + ": file ends inside a test case (read " + std::to_string(r + 1) + ")");
      if (k != 5) throw fail("a read line has 5 fields (bases quals ins dels gcp)");
      for (char c : t[0]) {
        if (!is_base(c)) throw fail("read base '" + std::string(1, c) + "' is not A/C/G/T/N");
      }
      for (int f = 1; f < 5; ++f) {
        if (t[f].size() != t[0].size()) throw fail("quality strings differ in length from the bases");
      }
      batch.read_begin.push_back(static_cast<int64_t>(batch.read_bases.size()));
      batch.read_len.push_back(static_cast<int32_t>(t[0].size()));
      batch.read_bases.insert(batch.read_bases.end(), t[0].begin(), t[0].end());
      const bool ok = append_phred33(t[1], batch.base_q) & append_phred33(t[2], batch.ins_q) &
                      append_phred33(t[3], batch.del_q) & append_phred33(t[4], batch.gcp_q);
      if (!ok) throw fail("quality character outside Phred+33");
    }
    for (int h = 0; h < n_haps; ++h) {
      const int k = next_tokens();
      if (k == 0) throw FormatError(path + ": file ends inside a test case (haplotype " + std::to_string(h + 1) + ")");
      if (k != 1) throw fail("a haplotype line has one field");
      for (char c : t[0]) {
        if (!is_base(c)) throw fail("haplotype base '" + std::string(1, c) + "' is not A/C/G/T/N");
      }
      batch.add_haplotype(t[0]);
    }
    batch.add_group(first_read, n_reads, first_hap, n_haps);
  }
}

PairHmmBatch sub_batch(const PairHmmBatch& batch, size_t g0, size_t g1) {
  PairHmmBatch out;
  std::vector<uint8_t> bq, iq, dq, gq;
  for (size_t g = g0; g < g1; ++g) {
    const PairHmmBatch::Group& gr = batch.groups[g];
    const int32_t first_read = static_cast<int32_t>(out.read_len.size());
    for (int32_t r = gr.first_read; r < gr.first_read + gr.n_reads; ++r) {
      const auto b = batch.read_begin[r];
      const auto e = b + batch.read_len[r];
      bq.assign(batch.base_q.begin() + b, batch.base_q.begin() + e);
      iq.assign(batch.ins_q.begin() + b, batch.ins_q.begin() + e);
      dq.assign(batch.del_q.begin() + b, batch.del_q.begin() + e);
      gq.assign(batch.gcp_q.begin() + b, batch.gcp_q.begin() + e);
      out.add_read(std::string_view(batch.read_bases.data() + b, batch.read_len[r]), bq, iq, dq, gq);
    }
    const int32_t first_hap = static_cast<int32_t>(out.hap_len.size());
    for (int32_t h = gr.first_hap; h < gr.first_hap + gr.n_haps; ++h) {
      out.add_haplotype(std::string_view(batch.hap_bases.data() + batch.hap_begin[h], batch.hap_len[h]));
    }
    out.add_group(first_read, gr.n_reads, first_hap, gr.n_haps);
  }
  return out;
}

}  // namespace gatemap::caller::pairhmm
