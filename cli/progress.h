// Progress of long work in `weir run` (compiling, interpreting): after the first second, the
// elapsed time on stderr ("compiling 'hdiff' (C++/OpenMP) ... 12 s"), once a second in place on a
// terminal, every 5 s as lines where stderr is not a terminal and progress was asked for
// (--progress). Nothing is printed for work that ends within a second, or when disabled.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace weir::cli {

/// Whether progress is shown: stderr is a terminal, or `forced` (--progress).
bool progress_wanted(bool forced);

class Progress {
 public:
  /// Starts reporting `label` when `enabled`.
  Progress(std::string label, bool enabled);
  /// Stops and clears the terminal line.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

 private:
  void loop();
  std::string label_;
  bool tty_ = false, printed_ = false, stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace weir::cli
