#pragma once
// Error types thrown by library code. Only apps/main.cpp catches them, prints
// "[E::<command>] <message>" and exits 1; library code never calls exit().
#include <stdexcept>
#include <string>

namespace gatemap {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A file could not be opened, read or written (full disk included).
struct IoError : Error {
  using Error::Error;
};
// Input that breaks its format: the message names the file and the record or line.
struct FormatError : Error {
  using Error::Error;
};
// A CUDA call failed: the message holds the call, file:line and cudaGetErrorString.
struct CudaError : Error {
  using Error::Error;
};
// Options that contradict each other or are out of range (exit status 2).
struct UsageError : Error {
  using Error::Error;
};

}  // namespace gatemap
