// weir: an optimizer and code generator for stateful dataflow graphs (SDFGs).
#include "commands.h"

int main(int argc, char** argv) { return weir::cli::run_cli(argc, argv); }
