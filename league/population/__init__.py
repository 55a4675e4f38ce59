"""The league population: registry, payoff table and ratings, opponent sampling, lifecycle rules."""
