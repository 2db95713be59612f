"""``iris-gui devices``: this machine's devices with their engines and, where it has no
accelerator, why not and what to do here and elsewhere."""

from __future__ import annotations

import argparse

from iris_gui.cli.output import print_json, table


def devices_command(args: argparse.Namespace) -> int:
    from iris_gui.engine.train.devices import accelerator_record, describe_devices
    from iris_gui.engine.words.machine_steps import steps_text

    found = describe_devices()
    record = accelerator_record()
    engines = {d.id: d.engines for d in found}
    if args.json:
        # Each device with its engines (null where the engine runs, else the reason it cannot),
        # and the accelerator record: its kind, the torch build, and why there is no GPU.
        print_json({"devices": [d.to_dict() for d in found], "accelerator": record.to_dict()})
        return 0
    rows = [[d.id, d.kind, d.name,
             f"{d.total_memory_bytes / 2**30:.1f} GiB" if d.total_memory_bytes else "-",
             d.capability or "-", ",".join(e for e, why in engines[d.id].items() if why is None)]
            for d in found]
    print(table(["device", "kind", "name", "memory", "capability", "engines"], rows))
    reasons = [f"  {d}/{e}: {why}" for d, by in engines.items() for e, why in by.items() if why]
    if reasons:
        print("unavailable engines:\n" + "\n".join(reasons))
    if not record.present:
        print("\n" + steps_text(record))
    return 0
