#pragma once
// A called site as a VCF record: QUAL, FILTER (PASS or LowQD), INFO DP and GATK's annotations
// (caller/annotations.hpp), FORMAT GT:GQ:DP:AD:PL; in a
// gVCF the ALT list ends with <NON_REF> (AD 0 for it, PL over every genotype with it).
#include "caller/detail.hpp"
#include "io/vcf_writer.hpp"

namespace gatemap::caller::detail {

// FILTER is LowQD where the call's QD is below min_qd, else PASS.
void write_site(io::VcfWriter& vcf, int rid, const SiteCall& call, bool gvcf, double min_qd);

}  // namespace gatemap::caller::detail
