# An orchestration function whose program is in another folder (examples/unstructured): found
# with -I, as a model's driver imports its stencils from a package elsewhere (cli/mesh-include.test).
from cell_laplacian import cell_laplacian


def step(psi, weights, lap):
    cell_laplacian(psi, weights, lap, offset_provider={})
