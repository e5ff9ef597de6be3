# model.physics lives in its own root: its operators import model.common from another root.
from .ops import CellState, edge_kernel, level_pair, state_kernel
