"""The calculator's one error type: what is wrong, and which input it is about."""


class CalcError(ValueError):
    """Bad input or a combination vLLM would refuse.

    ``field`` names the input (as the API names it, e.g. ``tensor_parallel_size`` or
    ``config.num_hidden_layers``) so the CLI, the API and the card pages can point at it.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field

    def to_json(self) -> dict:
        return {"error": self.message, "field": self.field}
