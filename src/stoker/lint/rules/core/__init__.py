"""What ``stoker template validate`` reports, as rules whose ids are `stoker.codes`."""
