// PairHmmBatch bookkeeping and the PairHMM benchmark file reader.
#include <cctype>
#include <string>

#include "common/error.hpp"
#include "caller/pairhmm/pairhmm.hpp"
#include "io/line_reader.hpp"

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

// Splits a line into whitespace-separated tokens.
std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<uint8_t> phred33(std::string_view s, const std::string& where) {
  std::vector<uint8_t> q(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const int c = static_cast<unsigned char>(s[i]);
    if (c < 33 || c > 126) throw FormatError(where + ": quality character outside Phred+33");
    q[i] = static_cast<uint8_t>(c - 33);
  }
  return q;
}

bool is_base(char c) { return c == 'A' || c == 'C' || c == 'G' || c == 'T' || c == 'N'; }

}  // namespace

void read_pairhmm_file(const std::string& path, PairHmmBatch& batch) {
  io::LineReader in(path);
  std::string_view line;
  auto where = [&] { return path + " line " + std::to_string(in.line_number()); };
  auto next_tokens = [&](std::vector<std::string_view>& t) {
    while (in.next(line)) {
      t = tokens(line);
      if (!t.empty()) return true;
    }
    return false;
  };
  std::vector<std::string_view> t;
  while (next_tokens(t)) {
    if (t.size() != 2) throw FormatError(where() + ": expected \"<reads> <haplotypes>\"");
    int n_reads = 0, n_haps = 0;
    try {
      n_reads = std::stoi(std::string(t[0]));
      n_haps = std::stoi(std::string(t[1]));
    } catch (const std::exception&) {
      throw FormatError(where() + ": expected two counts, found \"" + std::string(line) + "\"");
    }
    if (n_reads <= 0 || n_haps <= 0) throw FormatError(where() + ": counts must be positive");
    const int32_t first_read = static_cast<int32_t>(batch.read_len.size());
    const int32_t first_hap = static_cast<int32_t>(batch.hap_len.size());
    for (int r = 0; r < n_reads; ++r) {
      if (!next_tokens(t)) throw FormatError(path + ": file ends inside a test case (read " + std::to_string(r + 1) + ")");
      if (t.size() != 5) throw FormatError(where() + ": a read line has 5 fields (bases quals ins dels gcp)");
      for (char c : t[0]) {
        if (!is_base(c)) throw FormatError(where() + ": read base '" + std::string(1, c) + "' is not A/C/G/T/N");
      }
      for (int f = 1; f < 5; ++f) {
        if (t[f].size() != t[0].size()) throw FormatError(where() + ": quality strings differ in length from the bases");
      }
      batch.add_read(t[0], phred33(t[1], where()), phred33(t[2], where()), phred33(t[3], where()),
                     phred33(t[4], where()));
    }
    for (int h = 0; h < n_haps; ++h) {
      if (!next_tokens(t)) throw FormatError(path + ": file ends inside a test case (haplotype " + std::to_string(h + 1) + ")");
      if (t.size() != 1) throw FormatError(where() + ": a haplotype line has one field");
      for (char c : t[0]) {
        if (!is_base(c)) throw FormatError(where() + ": haplotype base '" + std::string(1, c) + "' is not A/C/G/T/N");
      }
      batch.add_haplotype(t[0]);
    }
    batch.add_group(first_read, n_reads, first_hap, n_haps);
  }
}

}  // namespace gatemap::caller::pairhmm
