"""A training run's state between its stages, in one file, so that a run stopped part way (a
machine shut down, a session's end) goes on from its last finished stage and ends with the same
bytes as a run that was never stopped."""
import os
import sys

import torch

VERSION = 1


class Checkpoint:
    """The state after a run's last finished stage, kept in path (None: not kept): the model's
    weights, torch's random state (dropout), the shared numpy generator's state, named arrays, the
    log so far, and run_args, the options that shape the stages (a resumed run must have the same).
    An existing file is read at once; stage is 0 when there is none."""

    def __init__(self, path, run_args):
        self.path, self.run_args, self.state = path, run_args, None
        if not path or not os.path.exists(path):
            return
        try:
            state = torch.load(path, weights_only=False)
        except Exception as e:  # torch.load raises many kinds on a truncated or foreign file
            sys.exit(f"{path}: not a readable checkpoint ({type(e).__name__}: {e})")
        if not isinstance(state, dict) or state.get("version") != VERSION:
            sys.exit(f"{path}: not a version {VERSION} training checkpoint")
        saved_args = state.get("args", {})
        if saved_args != run_args:
            differ = sorted(k for k in set(run_args) | set(saved_args)
                            if run_args.get(k) != saved_args.get(k))
            sys.exit(f"{path}: a checkpoint of a run with other options ({', '.join(differ)}); "
                     "run with its options, or remove it to start afresh")
        self.state = state

    @property
    def stage(self):
        return self.state["stage"] if self.state else 0

    @property
    def log_text(self):
        return self.state["log"] if self.state else ""

    def take_arrays(self):
        """The saved arrays, given once: this object keeps no reference to rows the run replaces."""
        return self.state.pop("arrays")

    def restore(self, model, rng):
        """Puts the saved weights into model and the saved random states back."""
        model.load_state_dict(self.state["model"])
        torch.set_rng_state(self.state["torch_rng"])
        rng.bit_generator.state = self.state["np_rng"]

    def save(self, stage, model, rng, log_text, **arrays):
        """Keeps the state after stage (written whole to a temporary file, then renamed)."""
        if not self.path:
            return
        state = dict(version=VERSION, args=self.run_args, stage=stage, model=model.state_dict(),
                     torch_rng=torch.get_rng_state(), np_rng=rng.bit_generator.state, log=log_text,
                     arrays=arrays)
        tmp = self.path + ".tmp"
        torch.save(state, tmp)
        os.replace(tmp, self.path)
