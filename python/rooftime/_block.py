"""What rooftime.torch.profile and rooftime.gpu.profile share: after their with block, the
profile it gave (.profile, a rooftime.Profile) and the calls on it."""
from . import core
from ._lib import Error


class ProfiledBlock:
    _what = "rooftime profile"  # the class's name in messages
    profile = None

    def _need(self):
        if self.profile is None:
            raise Error("%s: no profile yet (use it in a with block)" % self._what)
        return self.profile

    def analyze(self, machine, **kw):
        """The verdicts of the profiled block on machine (rooftime.analyze's options)."""
        return core.analyze([self._need()], machine, **kw)

    def save(self, path):
        self._need().save(path)

    def to_dict(self):
        return self._need().to_dict()
