/** The two stores svc runs on: the embedded SQLite file or PostgreSQL. */
export type Engine = 'sqlite' | 'postgres'
