"""ccsim's ns-3 benchmark script, run from a checkout: it lives in the package
(`python/ccsim/_ns3_dumbbell.py`, where `ccsim bench --ns3` finds it when ccsim is
installed); see its docstring for the arguments. Run with a Python that has ns-3's PyPI
package (`pip install ns3`); ccsim need not be installed there.

    python bench/ns3/dumbbell.py S1 [--duration SECONDS] [--sack] ...
"""

import runpy
from pathlib import Path

if __name__ == "__main__":
    runpy.run_path(str(Path(__file__).resolve().parents[2] / "python" / "ccsim" / "_ns3_dumbbell.py"), run_name="__main__")
