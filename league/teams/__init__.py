"""Team pools (PokePaste directories) validated by Showdown's own validator."""

from league.teams.repo import (
    DEFAULT_POOLS_DIR,
    Team,
    TeamPoolError,
    TeamRepository,
    TeamValidationError,
    validate_texts,
)

__all__ = ["DEFAULT_POOLS_DIR", "Team", "TeamPoolError", "TeamRepository", "TeamValidationError", "validate_texts"]
