#pragma once
// A std::ostream that gzip-compresses (RFC 1952, zlib's deflate) into another ostream: the
// timeline writes `trace.json.gz` through it, event by event, without holding the file.
//
// Contract: bytes written to stream() are compressed into `sink`; finish() writes the rest and
// the gzip trailer and must be called once, after the last byte (the destructor does not: an
// error path then leaves an incomplete stream, which cli::OutputSet discards anyway). The header
// carries no file name and time 0, so the same input gives byte-identical output.

#include <memory>
#include <ostream>
#include <string>

namespace partsim::report {

class GzipOstream {
 public:
  /// `level`: zlib's 0 (store) to 9 (smallest); 6 is gzip's default.
  explicit GzipOstream(std::ostream& sink, int level = 6);
  ~GzipOstream();
  GzipOstream(const GzipOstream&) = delete;
  GzipOstream& operator=(const GzipOstream&) = delete;

  std::ostream& stream();
  /// Flushes the compressor and writes the trailer. Throws partsim::Error when zlib or the sink fails.
  void finish();

 private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

/// True when `path` names a gzip file (ends in ".gz").
bool is_gzip_path(const std::string& path);

}  // namespace partsim::report
