"""The contract every game engine implements, and helpers shared by engines."""
