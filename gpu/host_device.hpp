#pragma once
// GATEMAP_HD marks the cores shared by a kernel and its CPU twin: compiled for host and
// device by nvcc, plain inline functions for the C++ compiler.
#if defined(__CUDACC__)
#define GATEMAP_HD __host__ __device__ __forceinline__
#else
#define GATEMAP_HD inline
#endif
