"""Values that carry nothing stored in clear where a stack's values are sealed.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-29

No schema change: what changes is what the sealed columns may hold. An empty value (null,
"", {} or []) of a sealed stack is stored as it is, not as a token; a stack's parameters
stay a token even when empty, as the mark that its values are sealed, and readers go by
that mark rather than by the look of one value (an older stoker took the first resource's
properties to say whether all of a stack's resources were sealed, and would misread a
database written since). Rows sealed before read as they are (a token of an empty value
is still a token), and ``stoker db rotate-key`` stores them the new way. The revision is
here so that an older stoker refuses the database (it does not know this revision)
rather than misreads it.
"""

from __future__ import annotations

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Nothing to do: rows written before read as they are."""


def downgrade() -> None:
    """Nothing to undo in the schema (an older stoker misreads empty values stored in
    clear since, so it should not open the database again)."""
