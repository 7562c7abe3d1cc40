"""memview_qmp.py - the devices memview.py changes through QMP: DIMMs
(pc-dimm: object-add + device_add, device_del) and virtio-mem devices
(qom-set requested-size), for tools/memview.py (docs/view.md).

QEMU serves one QMP client at a time, so every action is one short
connection (tools/qmp.py), closed again at once: a person's or a test's
QMP client gets its turn between two actions.

Standard library only.
"""

import threading
import time

from qmp import QMP, QMPError


class Devices:
    """DIMMs and virtio-mem devices through QMP: one short connection per action."""

    def __init__(self, path, state):
        self.path = path
        self.state = state
        self.lock = threading.Lock()
        self.n = 0

    def _qmp(self):
        return QMP(timeout=10).connect(self.path, timeout=3, retry=False)

    def _cmd(self, name, **args):
        with self.lock:
            q = self._qmp()
            try:
                return q.cmd(name, **args)
            finally:
                q.close()

    def refresh(self):
        """The pc-dimm and virtio-mem devices QEMU has, into the state."""
        try:
            devs = self._cmd("query-memory-devices")
        except (OSError, QMPError) as e:
            self.state.update(dimms_error=str(e))
            return
        dimms, vmems = [], []
        for d in devs:
            data = d.get("data", {})
            if d.get("type") == "dimm":
                dimms.append({"id": data.get("id"), "addr": data.get("addr"),
                              "size": data.get("size"), "node": data.get("node"),
                              "slot": data.get("slot")})
            elif d.get("type") == "virtio-mem":
                vmems.append({"id": data.get("id"), "addr": data.get("memaddr"),
                              "size": data.get("size"), "max_size": data.get("max-size"),
                              "requested": data.get("requested-size"),
                              "block_size": data.get("block-size"), "node": data.get("node")})
        self.state.update(dimms=dimms, vmems=vmems, dimms_error=None)

    def refresh_later(self, delay=0.0):
        def run():
            time.sleep(delay)
            self.refresh()
        threading.Thread(target=run, daemon=True).start()

    def add(self, size_mb):
        with self.lock:
            q = self._qmp()
            try:
                used = {d["data"].get("id") for d in q.cmd("query-memory-devices")
                        if "data" in d}
                while True:
                    self.n += 1
                    dev, mem = f"memview-d{self.n}", f"memview-m{self.n}"
                    if dev not in used:
                        break
                try:
                    q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": mem,
                                           "size": size_mb << 20})
                except QMPError as e:
                    if "duplicate" not in str(e).lower() and "exists" not in str(e).lower():
                        raise
                q.cmd("device_add", driver="pc-dimm", id=dev, memdev=mem)
            finally:
                q.close()
        self.state.update(note=f"QMP: added {dev} ({size_mb} MiB)")
        self.refresh_later()
        return dev

    def remove(self, dev):
        self._cmd("device_del", id=dev)
        self.state.update(note=f"QMP: device_del {dev} (memlab must offline and eject it)")
        threading.Thread(target=self._drop_backend, args=(dev,), daemon=True).start()

    def _drop_backend(self, dev):
        """The backend goes once the guest ejected the DIMM (object-del fails before)."""
        if not dev.startswith("memview-d"):
            return
        mem = "memview-m" + dev[len("memview-d"):]
        for _ in range(60):
            time.sleep(1.0)
            try:
                self._cmd("object-del", id=mem)
                break
            except (OSError, QMPError):
                continue
        self.refresh()

    def resize(self, dev, size_mb):
        """virtio-mem: the size the guest is asked to plug (qom-set requested-size)."""
        self._cmd("qom-set", path=dev, property="requested-size", value=size_mb << 20)
        self.state.update(note=f"QMP: qom-set {dev} requested-size {size_mb} MiB")
        for delay in (0.5, 3.0, 10.0):
            self.refresh_later(delay)
