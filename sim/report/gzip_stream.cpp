#include "sim/report/gzip_stream.hpp"

#include <zlib.h>

#include <streambuf>
#include <string>
#include <vector>

#include "sim/common/error.hpp"

namespace partsim::report {

// Collects written bytes in put_area_ and deflates them into the sink whenever it fills.
class GzipOstream::Buffer : public std::streambuf {
 public:
  Buffer(std::ostream& sink, int level) : sink_(sink), put_area_(kChunk), compressed_(kChunk) {
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's (zlib manual, deflateInit2).
    if (deflateInit2(&z_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw Error("gzip: cannot initialise zlib");
    setp(put_area_.data(), put_area_.data() + put_area_.size());
  }
  ~Buffer() override { deflateEnd(&z_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void finish() {
    if (finished_) throw Error("gzip: finish() called twice");
    compress(Z_FINISH);
    finished_ = true;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (finished_) return traits_type::eof();
    compress(Z_NO_FLUSH);
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }

 private:
  static constexpr size_t kChunk = 1 << 16;

  // Deflates what is in the put area (all of it; with Z_FINISH, also the rest and the trailer).
  void compress(int flush) {
    z_.next_in = reinterpret_cast<Bytef*>(pbase());
    z_.avail_in = static_cast<uInt>(pptr() - pbase());
    int result = Z_OK;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(compressed_.data());
      z_.avail_out = static_cast<uInt>(compressed_.size());
      result = deflate(&z_, flush);
      if (result == Z_STREAM_ERROR) throw Error("gzip: zlib deflate failed");
      sink_.write(compressed_.data(), static_cast<std::streamsize>(compressed_.size() - z_.avail_out));
      if (!sink_) throw Error("gzip: write failed");
    } while (z_.avail_out == 0 || (flush == Z_FINISH && result != Z_STREAM_END));
    setp(put_area_.data(), put_area_.data() + put_area_.size());
  }

  std::ostream& sink_;
  z_stream z_{};
  std::vector<char> put_area_;
  std::vector<char> compressed_;
  bool finished_ = false;
};

GzipOstream::GzipOstream(std::ostream& sink, int level)
    : buffer_(std::make_unique<Buffer>(sink, level)), stream_(std::make_unique<std::ostream>(buffer_.get())) {}

GzipOstream::~GzipOstream() = default;

std::ostream& GzipOstream::stream() { return *stream_; }

void GzipOstream::finish() {
  stream_->flush();
  if (!*stream_) throw Error("gzip: write failed");
  buffer_->finish();
}

bool is_gzip_path(const std::string& path) { return path.size() > 3 && path.ends_with(".gz"); }

}  // namespace partsim::report
