import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { hashPassword, verifyPassword } from '@app/users';

/**
 * Checks an email and password for the HTML login page. An unknown email costs the same scrypt
 * work as a wrong password, so response times do not reveal which emails exist.
 */
@Injectable()
export class LoginService {
  private readonly decoyHash = hashPassword('decoy password that matches nothing');

  constructor(private readonly dataSource: DataSource) {}

  async verify(email: string, password: string): Promise<string | null> {
    if (email.length > 320 || password.length > 1024) return null;
    const rows: { id: string; password_hash: string }[] = await this.dataSource.query(
      'SELECT id, password_hash FROM users WHERE lower(email) = lower($1)',
      [email.trim()],
    );
    const user = rows[0];
    const ok = await verifyPassword(password, user?.password_hash ?? (await this.decoyHash));
    return user && ok ? user.id : null;
  }
}
