# Physical constants as class attributes (later ones computed from earlier ones) and an enum
# whose members come from auto() and expressions.
import enum


class Consts:
    """Model constants."""

    A = 2.0
    B = A * 0.25
    C: float = B + A  # annotated

    @property
    def doubled(self):
        return 2 * self.A


class Level(enum.IntEnum):
    TOP = enum.auto()
    SECOND = enum.auto()
    BOTTOM = 1 << 3

    def describe(self):
        return self.name.lower()


WEIGHT = Consts.B * 2.0
