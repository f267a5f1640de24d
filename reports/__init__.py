"""Reports: great-tables price-drift reports, their files, and the weekly e-mail."""
