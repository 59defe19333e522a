/* rows: placeholder */
