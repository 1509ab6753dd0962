"""GPU memory peaks for the benchmarks, the same way for both sides of a comparison.

`with GpuMemoryPeak("cuda") as m: ...` samples `nvidia-smi --query-gpu=memory.used` every 50 ms
while the block runs (a strata-cli child process or this Python process alike) and gives
`m.peak_mib`: the highest reading minus the one before the block (None on the CPU or without
nvidia-smi). For this process's own work, `m.torch_peak_mib` is PyTorch's allocator peak
(torch.cuda.max_memory_allocated) over the block. The caching allocator is emptied first, so
memory this process merely keeps cached is not counted against the next block.
"""
import shutil
import subprocess
import threading


def used_mib():
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, timeout=10)
    return int(out.stdout.split()[0]) if out.returncode == 0 and out.stdout.strip() else None


class GpuMemoryPeak:
    def __init__(self, device, interval=0.05):
        self.enabled = str(device).startswith("cuda") and shutil.which("nvidia-smi") is not None
        self.interval = interval
        self.peak_mib = None
        self.torch_peak_mib = None

    def __enter__(self):
        if not self.enabled:
            return self
        import torch
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        if torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
        self.baseline = used_mib() or 0
        self.samples = [self.baseline]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()
        return self

    def _poll(self):
        while not self.stop.wait(self.interval):
            value = used_mib()
            if value is not None:
                self.samples.append(value)

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        import torch
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
            self.torch_peak_mib = torch.cuda.max_memory_allocated() / 2**20
        self.stop.set()
        self.thread.join()
        last = used_mib()
        if last is not None:
            self.samples.append(last)
        self.peak_mib = max(self.samples) - self.baseline
        return False
