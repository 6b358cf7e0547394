"""rocelab traffic manager + MAC: priority queues, strict/DWRR scheduling, shared buffer, PFC (802.1Qbb)."""
from emulator.tm.config import PfcConfig, SchedulerConfig, TmConfig, tm_config_from_spec
from emulator.tm.manager import TrafficManager

__all__ = ["PfcConfig", "SchedulerConfig", "TmConfig", "TrafficManager", "tm_config_from_spec"]
