# SPDX-License-Identifier: BSD-3-Clause
"""Inputs the application's test scripts share."""

import json


def write_sweep(path, strategies=("bh", "zone")):
    """A sweep result as usertools/rxrefill-sweep writes it (schema
    rxrefill-sweep/1): per strategy a pass at 1e6 and 2e6 pps, a 2% loss
    at 4e6."""
    with open(path, "w") as f:
        json.dump({"schema": "rxrefill-sweep/1", "unit": "pps",
                   "tolerance": 0.0, "strategies": [
                       {"strategy": s, "bulk": True, "no_drop_rate": 2e6,
                        "first_failing_rate": 4e6, "at_max": False,
                        "steps": [{"rate": r, "sent": 1000,
                                   "rx_packets": 1000 - int(loss * 1000),
                                   "loss": loss, "pass": loss == 0}
                                  for r, loss in ((1e6, 0), (4e6, 0.02),
                                                  (2e6, 0.0))]}
                       for s in strategies]}, f)
