"""Claude API exchanges with structured citations: their model, their rules and ``citations claude
import``."""
