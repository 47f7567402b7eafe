#pragma once
// A called site as a VCF record: QUAL, FILTER (PASS or LowQD), INFO AC/AF/AN (not in a
// gVCF), DP and GATK's annotations (caller/annotations.hpp), FORMAT GT:AD:DP:GQ:PL as
// GATK writes them, a column per sample; in a gVCF the ALT list ends with <NON_REF> (AD 0
// for it, PL over every genotype with it) and the raw values joint genotyping needs
// (INFO RAW_MQandDP, FORMAT SB).
#include <string>
#include <vector>

#include "caller/detail.hpp"
#include "io/text/vcf_writer.hpp"

namespace gatemap::caller::detail {

// The header lines of what write_site writes.
std::vector<std::string> site_header_lines(bool gvcf);

// FILTER is LowQD where the call's QD is below min_qd, else PASS.
void write_site(io::VcfWriter& vcf, int rid, const SiteCall& call, bool gvcf, double min_qd);
// The same record as VCF text appended to `text` (any thread: the header is only read),
// for VcfWriter::write_text.
void format_site(const bcf_hdr_t* hdr, int rid, const SiteCall& call, bool gvcf, double min_qd, std::string& text);

}  // namespace gatemap::caller::detail
