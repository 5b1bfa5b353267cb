"""What serving costs: the time bounds turned into tokens per GPU-hour and, with a price, per dollar."""
