"""Ready backends, as gt4py's ``gtx.backends``: ``cpu`` (C++/OpenMP, compiled and cached),
``gpu`` (CUDA through nvcc; running needs a CUDA device) and ``embedded`` (the interpreter,
weir's reference semantics). Customise one with ``replace``:
``weir.backends.cpu.replace(name="mine", compiler=my_compiler)``."""

from ._weir import EmbeddedBackend, cpu_backend, gpu_backend

cpu = cpu_backend()
gpu = gpu_backend()
embedded = EmbeddedBackend()

__all__ = ["cpu", "gpu", "embedded"]
