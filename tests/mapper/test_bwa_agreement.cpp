// Where a bwa mem user's scripts meet our records: AS:i and XS:i against bwa mem's on
// the same reads. bwa (Debian's `bwa`, scripts/deps.sh --test) is the oracle; the tests
// skip without it.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "sim_fixture.hpp"

using namespace gatemap;

namespace {

const test::SimData& data() {
  static test::SimData d;
  return d;
}

bool have_bwa() { return test::run_command("command -v bwa") == 0; }

// bwa's index of the fixture's reference, built once.
const std::string& bwa_reference() {
  static const std::string ref = [] {
    const std::string r = data().dir.file("bwa_ref.fa");
    std::string log;
    if (test::run_command("cp " + data().ref + " " + r + " && bwa index " + r, &log) != 0) {
      ADD_FAILURE() << log;
    }
    return r;
  }();
  return ref;
}

// A primary record's placement and the tags compared.
struct Placed {
  std::string contig, pos, cigar;
  bool reverse = false;
  std::string as, xs;
  std::set<std::string> xa;  // XA:Z's entries
  bool operator==(const Placed& o) const {
    return contig == o.contig && pos == o.pos && cigar == o.cigar && reverse == o.reverse;
  }
};

// Mapped primary records by (name, read 1/2 flag bits).
std::map<std::pair<std::string, int>, Placed> primaries(const std::string& sam_text) {
  std::map<std::pair<std::string, int>, Placed> out;
  std::istringstream in(sam_text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '@') continue;
    const auto f = test::sam_fields(line);
    if (f.size() < 11) {
      ADD_FAILURE() << "not a SAM record: " << line;
      continue;
    }
    const int flag = std::stoi(f[1]);
    if (flag & (BAM_FUNMAP | BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
    Placed p{f[2], f[3], f[5], (flag & BAM_FREVERSE) != 0, "", "", {}};
    for (size_t i = 11; i < f.size(); ++i) {
      const std::string tag = f[i].substr(0, 2), value = f[i].substr(5);
      if (tag == "AS") p.as = value;
      if (tag == "XS") p.xs = value;
      if (tag == "XA") {
        std::istringstream entries(value);
        for (std::string e; std::getline(entries, e, ';');) p.xa.insert(e);
      }
    }
    out[{f[0], flag & (BAM_FREAD1 | BAM_FREAD2)}] = p;
  }
  return out;
}

}  // namespace

// AS is bwa's alignment score, so it equals bwa's wherever both report the same
// alignment; XS (the best other placement's score) wherever both list the same other
// placements (XA). bwa also scores partial hits we do not look for (XS from a 20-base
// match elsewhere): those reads are not compared.
TEST(BwaAgreement, AsAndXsEqualBwaMemsWhereTheAlignmentsAgree) {
  if (!have_bwa()) GTEST_SKIP() << "bwa not installed";
  const auto& d = data();
  const std::string bwa_sam = d.dir.file("bwa.sam");
  std::string log;
  ASSERT_EQ(test::run_command("(bwa mem -t 2 " + bwa_reference() + " " + d.pe1 + " " + d.pe2 + " > " + bwa_sam +
                                  ") 2>" + d.dir.file("bwa.log"),
                              &log),
            0)
      << log;
  const auto theirs = primaries(test::read_file(bwa_sam));
  const auto ours = primaries(d.map(d.pe1, d.pe2, "cpu"));
  int64_t same = 0, as_equal = 0, same_others = 0, xs_equal = 0;
  for (const auto& [key, p] : ours) {
    const auto it = theirs.find(key);
    if (it == theirs.end() || !(it->second == p)) continue;
    ++same;
    as_equal += p.as == it->second.as;
    EXPECT_EQ(p.as, it->second.as) << key.first << " " << p.cigar;
    if (!p.xa.empty() && p.xa == it->second.xa) {
      ++same_others;
      xs_equal += p.xs == it->second.xs;
      EXPECT_EQ(p.xs, it->second.xs) << key.first;
    }
  }
  EXPECT_GE(same, static_cast<int64_t>(ours.size() * 9 / 10)) << "too few reads placed as bwa places them";
  EXPECT_GE(same_others, 20) << "too few reads with the same other placements to compare XS";
  EXPECT_EQ(as_equal, same);
  EXPECT_EQ(xs_equal, same_others);
}

namespace {

// The FASTQ records of a file, four lines each.
std::vector<std::string> fastq_records(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(test::read_file(path));
  std::string record, line;
  for (int n = 0; std::getline(in, line); ++n) {
    record += line + "\n";
    if (n % 4 == 3) {
      out.push_back(record);
      record.clear();
    }
  }
  return out;
}

// The primary records in output order: name and the pairing flags bwa sets.
std::vector<std::string> pairing_in_order(const std::string& sam_text) {
  std::vector<std::string> out;
  std::istringstream in(sam_text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '@') continue;
    const auto f = test::sam_fields(line);
    const int flag = std::stoi(f[1]);
    if (flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
    out.push_back(f[0] + " " + std::to_string(flag & (BAM_FPAIRED | BAM_FREAD1 | BAM_FREAD2)));
  }
  return out;
}

}  // namespace

// samtools collate | samtools fastq | bwa mem -p: a file of pairs among reads whose mate
// was lost. -p pairs them as bwa mem -p does (consecutive reads of one name), maps the
// others as single reads, and writes every read in input order.
TEST(BwaAgreement, SmartPairingPairsAsBwaMemP) {
  if (!have_bwa()) GTEST_SKIP() << "bwa not installed";
  const auto& d = data();
  const auto mate1 = fastq_records(d.pe1), mate2 = fastq_records(d.pe2), single = fastq_records(d.se);
  std::string text;
  for (size_t i = 0; i < mate1.size(); ++i) {
    if (i % 7 != 3) text += mate1[i];
    if (i % 11 != 5) text += mate2[i];
    if (i % 13 == 0 && i / 13 < single.size()) text += single[i / 13];
  }
  const std::string input = test::write_file(d.dir.file("collated.fq"), text);
  const std::string bwa_sam = d.dir.file("bwa_p.sam");
  std::string log;
  ASSERT_EQ(test::run_command("(bwa mem -p -t 2 " + bwa_reference() + " " + input + " > " + bwa_sam + ") 2>" +
                                  d.dir.file("bwa_p.log"),
                              &log),
            0)
      << log;
  std::string one_lane;
  for (const size_t batch : {100000, 301}) {  // one batch; batches cut anywhere
    mapper::RunOptions o = d.options(input, "", d.dir.file("smart.sam"));
    o.interleaved = true;
    o.batch_reads = batch;
    mapper::run_mapping(o);
    if (batch == 301) {  // three lanes (as three GPUs run) write one lane's records
      one_lane = test::without_pg(test::read_file(o.output));
      o.lanes = 3;
      o.output = d.dir.file("smart_lanes.sam");
      mapper::run_mapping(o);
      EXPECT_TRUE(test::without_pg(test::read_file(o.output)) == one_lane) << "three lanes wrote other records";
      o.output = d.dir.file("smart.sam");
    }
    const auto ours = pairing_in_order(test::read_file(o.output));
    const auto theirs = pairing_in_order(test::read_file(bwa_sam));
    EXPECT_EQ(ours.size(), theirs.size());
    EXPECT_TRUE(ours == theirs) << "batches of " << batch;
    for (size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) {
      if (ours[i] != theirs[i]) {
        ADD_FAILURE() << "record " << i << ": " << ours[i] << " vs bwa's " << theirs[i];
        break;
      }
    }
  }
}
