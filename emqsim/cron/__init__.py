"""The cron rules the course compares: croniter's, Debian cron's (cronsim), cron-parser's and
BullMQ's use of it, each asked for the same expression, zone and window (`rules`)."""
