# The shared part of the `model` namespace package (this root holds model.common only; the
# dycore and physics roots hold the rest). Relative imports re-export the dimensions and the
# constants, as real model code bases do in their package's __init__.py.
from . import dims
from .constants import Consts, Level, WEIGHT
from .dims import C2E, CellDim, CellKField, E2C, E2V, EdgeDim, EdgeKField, KDim, Koff, VertexDim, VertexKField, wpfloat
