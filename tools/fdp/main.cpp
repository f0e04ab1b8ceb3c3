// fdp: the command-line front end. See docs/cli.md and `fdp --help`.
// Everything is in fdp::cli::run (run.cpp), so that tests and fuzz targets
// can drive the CLI in-process.
#include "cli.hpp"

int main(int argc, char** argv) {
  fdp::cli::enable_big_blocks();
  return fdp::cli::run(argc, argv);
}
