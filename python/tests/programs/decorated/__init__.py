# A package for the decorator tests: its modules import each other by the package's name, which
# weir resolves from the folder @weir.program finds the package in.
