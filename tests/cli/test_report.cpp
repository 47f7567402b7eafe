// gatemap report: a run's --stats JSON and eval tables as one HTML page. Its tables hold
// the inputs' numbers as written, each chart has data, and a real headless browser
// (Debian's chromium, skipped without it) renders it to the same elements.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "../test_util.hpp"

using gatemap::test::read_file;
using gatemap::test::run_command;

const std::string kBin = GATEMAP_BINARY;

namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class Report : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new gatemap::test::TempDir();
    const std::string g = kBin + " ";
    std::string out;
    const std::string run =
        g + "sim genome --length 150000 --contigs 2 -o " + f("ref.fa") + " && " + g + "index -o " + f("ref.gmi") + " " +
        f("ref.fa") + " && " + g + "sim variants " + f("ref.fa") + " -o " + f("donor") + " && " + g + "sim reads " +
        f("ref.fa") + " --vcf " + f("donor.truth.vcf.gz") + " -n 8000 -o " + f("r") + " && " + g + "map -t 2 --sort " +
        "--stats " + f("map.json") + " -o " + f("r.bam") + " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq") +
        " && " + g + "call -t 2 --stats " + f("call.json") + " -r " + f("ref.fa") + " -o " + f("c.vcf.gz") + " " +
        f("r.bam") + " && " + g + "eval map " + f("r.bam") + " > " + f("map_eval.txt") + " && " + g + "eval vcf " +
        f("donor.truth.vcf.gz") + " " + f("c.vcf.gz") + " -r " + f("ref.fa") + " > " + f("vcf_eval.txt") + " && " + g +
        "report -o " + f("report.html") + " " + f("map.json") + " " + f("call.json") + " " + f("map_eval.txt") + " " +
        f("vcf_eval.txt");
    ASSERT_EQ(run_command(run, &out), 0) << out;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string f(const std::string& name) { return dir_->file(name); }
  static gatemap::test::TempDir* dir_;
};
gatemap::test::TempDir* Report::dir_ = nullptr;

}  // namespace

// Every field of the JSON stands in the page's table as the JSON wrote it ("seconds" as
// seconds.NAME); the eval tables' cells too.
TEST_F(Report, TablesHoldTheInputsNumbersAsWritten) {
  const std::string html = read_file(f("report.html"));
  for (const char* json : {"map.json", "call.json"}) {
    const std::string text = read_file(f(json));
    const std::regex field("\"([A-Za-z_]+)\": (-?[0-9.e+-]+)");
    int fields = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), field); it != std::sregex_iterator(); ++it, ++fields) {
      const std::string name = (*it)[1], value = (*it)[2];
      const bool in_seconds = text.find("\"seconds\"") != std::string::npos &&
                              text.find("\"" + name + "\"") > text.find("\"seconds\"");
      const std::string row = "<td>" + std::string(in_seconds ? "seconds." : "") + name + "</td><td>" + value + "</td>";
      EXPECT_NE(html.find(row), std::string::npos) << json << ": " << row;
    }
    EXPECT_GT(fields, 10) << json;
  }
  std::istringstream eval(read_file(f("vcf_eval.txt")));
  for (std::string line; std::getline(eval, line);) {
    if (line.rfind("SNP\t", 0) != 0 && line.rfind("INDEL\t", 0) != 0) continue;
    std::istringstream cells(line);
    std::vector<std::string> c;
    for (std::string x; std::getline(cells, x, '\t');) c.push_back(x);
    ASSERT_GE(c.size(), 7u);
    EXPECT_NE(html.find("<td>" + c[6] + "</td>"), std::string::npos) << line;  // F1 in the table
    EXPECT_NE(html.find("data-value=\"" + c[6] + "\""), std::string::npos) << line;  // and in its chart
  }
}

// Each chart has data: bars for counts, stage times and F1; a point per MAPQ threshold.
TEST_F(Report, EveryChartHasData) {
  const std::string html = read_file(f("report.html"));
  EXPECT_EQ(count(html, "<svg class=\"chart\""), 9);  // 2 x (counts, times), inserts, MAPQ, depth, MAPQ curve, F1
  EXPECT_GE(count(html, "<rect class=\"bar"), 20);
  EXPECT_EQ(count(html, "<circle class=\"point\""), 6);  // MAPQ >= 60, 30, 20, 10, 1, 0
  EXPECT_EQ(html.find("http"), std::string::npos);  // nothing fetched when viewed
}

// A histogram chart's bars, summed.
long long bars_sum(const std::string& html, const std::string& caption) {
  const size_t at = html.find(caption), end = html.find("</svg>", at);
  EXPECT_NE(at, std::string::npos) << caption;
  if (at == std::string::npos) return -1;
  const std::string chart = html.substr(at, end - at);
  const std::regex value("data-value=\"([0-9]+)\"");
  long long sum = 0;
  for (auto it = std::sregex_iterator(chart.begin(), chart.end(), value); it != std::sregex_iterator(); ++it) {
    sum += std::stoll((*it)[1]);
  }
  return sum;
}

long long json_count(const std::string& json, const std::string& name) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(json, m, std::regex("\"" + name + "\": ([0-9]+)"))) << name;
  return m.empty() ? -1 : std::stoll(m[1]);
}

// The insert sizes' bars add up to map's proper pairs (each counted once, by mate 1), the
// MAPQ bars to its mapped reads.
TEST_F(Report, HistogramsAddUpToMapsCounts) {
  const std::string html = read_file(f("report.html")), json = read_file(f("map.json"));
  EXPECT_EQ(bars_sum(html, "Proper pairs by insert size"), json_count(json, "proper_pairs"));
  EXPECT_EQ(bars_sum(html, "Mapped reads by MAPQ"), json_count(json, "mapped"));
  EXPECT_GT(json_count(json, "proper_pairs"), 1000);
}

// map's depth of coverage is samtools depth's (every position, deletions counted), and
// the page draws it by contig.
TEST_F(Report, DepthIsSamtoolsDepths) {
  if (run_command("samtools --version") != 0) GTEST_SKIP() << "samtools not installed";
  std::string out;
  ASSERT_EQ(run_command("samtools depth -a -J -Q 0 -q 0 " + f("r.bam") + " | awk '{ s += $3 } END { printf \"%.4f\", s / NR }'",
                        &out), 0) << out;
  std::smatch depth;
  const std::string json = read_file(f("map.json"));
  ASSERT_TRUE(std::regex_search(json, depth, std::regex("\"mean_depth\": ([0-9.]+)")));
  EXPECT_NEAR(std::stod(depth[1]), std::stod(out), 1e-3);
  EXPECT_NE(read_file(f("report.html")).find("Depth of coverage by contig"), std::string::npos);
}

// A file that is none of the inputs is an error naming it; no page is written.
TEST_F(Report, OtherFilesAreRefusedByName) {
  std::string out;
  EXPECT_EQ(run_command(kBin + " report -o " + f("bad.html") + " " + f("ref.fa"), &out), 1);
  EXPECT_NE(out.find("'" + f("ref.fa") + "' line 1"), std::string::npos) << out;
  const std::string broken = gatemap::test::write_file(f("broken.json"), "{\n  \"reads\": 12,\n  \"mapped\": x\n}\n");
  EXPECT_EQ(run_command(kBin + " report -o " + f("bad.html") + " " + broken, &out), 1);
  EXPECT_NE(out.find("'" + broken + "' line 3"), std::string::npos) << out;
  EXPECT_NE(run_command("test -e " + f("bad.html")), 0);
}

// Debian's chromium, headless, renders the page: its DOM has the same charts and numbers.
TEST_F(Report, RendersInAHeadlessBrowser) {
  if (run_command("command -v chromium") != 0) GTEST_SKIP() << "chromium not installed";
  const std::string browser = "timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom ";
  std::string probe;  // a browser that cannot start here (no /dev/shm, say) is no verdict on the page
  if (run_command(browser + "'data:text/html,<p>ok</p>' 2>/dev/null", &probe) != 0 ||
      probe.find("<p>ok</p>") == std::string::npos) {
    GTEST_SKIP() << "chromium does not run here: " << probe;
  }
  std::string dom;
  ASSERT_EQ(run_command(browser + "file://" + f("report.html") + " 2>/dev/null", &dom), 0) << dom;
  const std::string html = read_file(f("report.html"));
  EXPECT_NE(dom.find("<h1>gatemap report</h1>"), std::string::npos);
  EXPECT_EQ(count(dom, "<svg class=\"chart\""), count(html, "<svg class=\"chart\""));
  EXPECT_EQ(count(dom, "<rect class=\"bar"), count(html, "<rect class=\"bar"));
  EXPECT_EQ(count(dom, "<circle class=\"point\""), count(html, "<circle class=\"point\""));
  EXPECT_EQ(count(dom, "<td>"), count(html, "<td>"));
}
