"""Fallen Worlds, the online card game: rules functions and card data (game id `worlds`)."""
